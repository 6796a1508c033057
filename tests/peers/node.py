"""Running a node peer script: one JSON request on stdin, one JSON answer on stdout."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

TIMEOUT = 60.0


class PeerError(RuntimeError):
    """The peer script failed, timed out, or answered something unexpected."""


def run_node_json(node: str, script: Path, request: Any) -> Any:
    """Send ``request`` as JSON to ``script`` (run in its folder) and return its JSON answer."""
    try:
        done = subprocess.run(
            [node, str(script)],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=TIMEOUT,
            cwd=script.parent,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise PeerError(f"{script.name} did not answer within {TIMEOUT} s") from exc
    if done.returncode != 0:
        raise PeerError(f"{script.name} exited with {done.returncode}:\n{done.stderr}")
    try:
        return json.loads(done.stdout)
    except ValueError as exc:
        raise PeerError(f"{script.name} answered {done.stdout[:200]!r}") from exc
