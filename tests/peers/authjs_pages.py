"""Auth.js's own pages, served by the real ``@auth/express`` on Express, for tests.

``tests/peers/authjs/pages.mjs`` serves ``ExpressAuth`` at ``/auth`` on 127.0.0.1 with the
sign-in options the demo shows (GitHub, Google, GitLab and Discord with dummy clients,
sign-in links by email, passkeys, credentials); :func:`authjs_pages` runs it on a free port
for the length of a ``with`` block. Without node or the npm packages it fails under CI
(``CI=true``) and skips elsewhere (:func:`~tests.peers.availability.peer_missing`).
"""

from __future__ import annotations

import contextlib
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from tests.peers.availability import peer_missing
from tests.peers.servers import stop

PEER_DIR = Path(__file__).resolve().parent / "authjs"
SCRIPT = PEER_DIR / "pages.mjs"
PACKAGES = ("@auth/core", "@auth/express", "@simplewebauthn/server", "express")
"""What ``pages.mjs`` imports (``tests/peers/authjs/package.json``)."""
INSTALL_HINT = "run scripts/test, which runs `npm ci` in tests/peers/authjs"
READY = "listening on "
"""How ``pages.mjs``'s ready line starts; the server's URL follows."""
START_TIMEOUT = 30.0


def missing() -> str | None:
    """Why the server cannot run here, or ``None`` when it can."""
    if shutil.which("node") is None:
        return "node is not installed (not on PATH)"
    for package in PACKAGES:
        if not (PEER_DIR / "node_modules" / package / "package.json").is_file():
            return f"{package} is not installed in {PEER_DIR}"
    return None


@contextlib.contextmanager
def authjs_pages() -> Iterator[str]:
    """Auth.js on Express on 127.0.0.1 and a free port; yields its base URL
    (``http://127.0.0.1:<port>``, Auth.js under ``/auth``) and stops it afterwards.

    Without node or the npm packages: fail under CI, skip elsewhere."""
    reason = missing()
    if reason is not None:
        peer_missing(f"Auth.js on Express unavailable: {reason}; {INSTALL_HINT}")
    node = shutil.which("node")
    assert node is not None
    with tempfile.TemporaryFile(prefix="authui-authjs-pages-") as log:
        process = subprocess.Popen(
            [node, str(SCRIPT), "0"],
            cwd=PEER_DIR,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=log,
        )
        try:
            assert process.stdout is not None
            yield wait_for_ready(process, process.stdout, log)
        finally:
            stop(process)
            if process.stdout is not None:
                process.stdout.close()


def wait_for_ready(process: subprocess.Popen[bytes], stdout: IO[bytes], log: IO[bytes]) -> str:
    """The URL in the server's ready line; fail with its stderr if it exits first or takes
    longer than ``START_TIMEOUT``."""
    deadline = time.monotonic() + START_TIMEOUT
    while (remaining := deadline - time.monotonic()) > 0:
        readable, _, _ = select.select([stdout], [], [], remaining)
        if not readable:
            break
        line = stdout.readline().decode("utf-8", "replace").strip()
        if line.startswith(READY):
            return line.removeprefix(READY)
        if not line:  # end of output: the server is gone
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
            raise RuntimeError(f"{SCRIPT.name} exited ({process.returncode}):\n{_read(log)}")
    raise RuntimeError(f"{SCRIPT.name} did not start in {START_TIMEOUT} s:\n{_read(log)}")


def _read(log: IO[bytes]) -> str:
    log.seek(0)
    return log.read().decode("utf-8", "replace")
