"""A Starlette app for the throttling browser test (``tests/e2e/test_throttle_browser.py``).

The auth routes at ``/auth`` with one credentials provider, which refuses every password,
and the default ``Throttle``: the sixth failed sign-in of an account within five minutes is
answered with 429. Serve it with ``uvicorn tests.peers.throttle_app:app``.
"""

from __future__ import annotations

import secrets
from typing import Any

from starlette.applications import Starlette
from starlette.routing import Mount

from authui import AuthConfig, Credentials, set_env_defaults
from authui.starlette import AuthApp


def authorize(credentials: dict[str, Any]) -> None:
    """Every password is wrong."""


config = set_env_defaults(
    {"AUTH_SECRET": secrets.token_hex(32), "AUTH_TRUST_HOST": "true"},
    AuthConfig(
        providers=[
            Credentials(
                credentials={
                    "username": {"label": "Username", "autocomplete": "username"},
                    "password": {"label": "Password", "type": "password"},
                },
                authorize=authorize,
            )
        ]
    ),
)
app = Starlette(routes=[Mount("/auth", AuthApp(config))])
