"""Real ASGI servers for tests: the app under test in hypercorn subprocesses."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 30.0


@contextlib.contextmanager
def hypercorn_servers(app: str, count: int, env: dict[str, str]) -> Iterator[list[str]]:
    """``count`` hypercorn processes of ``app`` on 127.0.0.1 and pre-bound free ports,
    started together; yields their base URLs and stops them afterwards.

    Each listening socket is made here and handed to hypercorn (``fd://``), so every port
    is free and ours, with no window for another process to take it."""
    started: list[tuple[subprocess.Popen[bytes], str, Path]] = []
    with (
        tempfile.TemporaryDirectory(prefix="authui-servers-") as tmp,
        contextlib.ExitStack() as stack,
    ):
        try:
            for index in range(count):
                listener = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
                listener.bind(("127.0.0.1", 0))
                listener.listen(128)
                fd = listener.fileno()
                log = Path(tmp) / f"server-{index}.log"
                log_file: IO[bytes] = stack.enter_context(log.open("wb"))
                server = subprocess.Popen(
                    [sys.executable, "-m", "hypercorn", "--bind", f"fd://{fd}", app],
                    cwd=ROOT,
                    env=env,
                    pass_fds=[fd],
                    stdout=log_file,
                    stderr=subprocess.STDOUT,
                )
                started.append((server, f"http://127.0.0.1:{listener.getsockname()[1]}", log))
            stack.close()  # the children hold the listening sockets now
            for server, url, log in started:
                wait_until_up(url, server, log)
            yield [url for _, url, _ in started]
        finally:
            for server, _, _ in started:
                server.terminate()
            for server, _, _ in started:
                try:
                    server.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()


def wait_until_up(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    """Wait until ``url`` answers ``/auth/providers``; fail with the server's log if it
    exits or takes longer than ``START_TIMEOUT``."""
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if server.poll() is not None:
            raise RuntimeError(f"{url} exited ({server.returncode}):\n{log.read_text()}")
        try:
            with urllib.request.urlopen(url + "/auth/providers", timeout=2) as answer:  # noqa: S310
                if answer.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not answer in time:\n{log.read_text()}")
        time.sleep(0.05)
