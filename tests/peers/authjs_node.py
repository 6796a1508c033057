"""The real ``@auth/core`` JWT functions and ``Auth`` handler, run by node, for
interoperability tests.

``tests/peers/authjs/jwt.mjs`` answers a batch of operations (``encode``, ``decode``,
``getToken``, ``chunk``; see its header) in one node process, so a test module pays node's
start-up once; ``tests/peers/authjs/core.mjs`` likewise runs a batch of request scenarios
through the real ``Auth`` handler (:meth:`AuthJS.core`). Use the :func:`authjs` fixture: it
fails under CI (``CI=true``) and skips elsewhere when node or the npm package is missing,
saying how to install it.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.peers.availability import peer_missing
from tests.peers.node import PeerError, run_node_json

PEER_DIR = Path(__file__).resolve().parent / "authjs"
SCRIPT = PEER_DIR / "jwt.mjs"
CORE_SCRIPT = PEER_DIR / "core.mjs"
PACKAGE = PEER_DIR / "node_modules" / "@auth" / "core"
INSTALL_HINT = "run scripts/test, which runs `npm ci` in tests/peers/authjs"

Operation = Mapping[str, Any]
Result = dict[str, Any]
Scenario = Mapping[str, Any]
"""``{"name", "origin", "steps": [{"method", "path", "headers", "body", "cookies", "jar"}]}``"""
StepResult = dict[str, Any]
"""``{"status", "headers": {lower-cased name: [values]}, "body", "logged"}``"""


class AuthJS:
    """Runs ``jwt.mjs`` operations and ``core.mjs`` scenarios with the node executable ``node``."""

    def __init__(self, node: str) -> None:
        self.node = node

    def run_script(self, script: Path, request: Any) -> Any:
        """Send ``request`` as JSON to ``script``'s stdin, in one node process; return the
        JSON it writes to stdout."""
        return run_node_json(self.node, script, request)

    def run(self, operations: Sequence[Operation]) -> list[Result]:
        """Answer every operation, in order, from one node process.

        A failed operation answers ``{"error": message, "name": error class}``.
        """
        results = self.run_script(SCRIPT, list(operations))
        if not isinstance(results, list) or len(results) != len(operations):
            raise PeerError(f"{SCRIPT.name} answered {json.dumps(results)[:200]!r}")
        return [dict(r) for r in results]

    def core(self, secret: str, scenarios: Sequence[Scenario]) -> list[list[StepResult]]:
        """Run every scenario through the real ``Auth`` handler (``core.mjs``), in one node
        process; for each scenario, one result per step.

        See ``core.mjs``'s header for the shape of scenarios and results.
        """
        answers = self.run_script(CORE_SCRIPT, {"secret": secret, "scenarios": list(scenarios)})
        if not isinstance(answers, list) or len(answers) != len(scenarios):
            raise PeerError(f"{CORE_SCRIPT.name} answered {json.dumps(answers)[:200]!r}")
        return [[dict(step) for step in steps] for steps in answers]

    def named(self, operations: Mapping[str, Operation]) -> dict[str, Result]:
        """:meth:`run` for operations keyed by name; the results have the same keys."""
        return dict(zip(operations, self.run(list(operations.values())), strict=True))


def missing() -> str | None:
    """Why the peer cannot run here, or ``None`` when it can."""
    if shutil.which("node") is None:
        return "node is not installed (not on PATH)"
    if not (PACKAGE / "package.json").is_file():
        return f"@auth/core is not installed in {PEER_DIR}"
    return None


@pytest.fixture(scope="session")
def authjs() -> AuthJS:
    """The peer; without node or @auth/core, fail under CI and skip elsewhere."""
    reason = missing()
    if reason is not None:
        peer_missing(f"Auth.js peer unavailable: {reason}; {INSTALL_HINT}")
    node = shutil.which("node")
    assert node is not None
    return AuthJS(node)
