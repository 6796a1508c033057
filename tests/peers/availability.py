"""The one rule for test peers that are not there: fail under CI, skip elsewhere."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def peer_missing(message: str) -> NoReturn:
    """A peer (node package, browser, npm tool) is missing: with ``CI=true`` that is a
    failure, since CI must run every test; on a developer's machine the test is skipped
    with ``message`` saying how to install it."""
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)
