"""Real ASGI servers for tests: the app under test in hypercorn or uvicorn subprocesses."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, Literal

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 30.0
Server = Literal["hypercorn", "uvicorn"]
SERVER_ARGS: dict[str, Callable[[int], list[str]]] = {
    "hypercorn": lambda fd: ["hypercorn", "--bind", f"fd://{fd}"],
    "uvicorn": lambda fd: ["uvicorn", "--fd", str(fd), "--log-level", "warning"],
}
"""The ``python -m`` arguments that serve on an inherited listening socket."""


@contextlib.contextmanager
def asgi_servers(
    app: str,
    count: int,
    env: dict[str, str],
    *,
    server: Server = "hypercorn",
    cwd: Path = ROOT,
) -> Iterator[list[str]]:
    """``count`` processes of ``app`` in ``server`` (hypercorn, or uvicorn: the servers
    authui recommends for Quart and for Starlette/FastAPI) on 127.0.0.1 and pre-bound free
    ports, started together in ``cwd`` (where ``app``'s module is found); yields their
    base URLs and stops them afterwards.

    Each listening socket is made here and handed to the server by its file descriptor,
    so every port is free and ours, with no window for another process to take it."""
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
                process = subprocess.Popen(
                    [sys.executable, "-m", *SERVER_ARGS[server](fd), app],
                    cwd=cwd,
                    env=env,
                    pass_fds=[fd],
                    stdout=log_file,
                    stderr=subprocess.STDOUT,
                )
                started.append((process, f"http://127.0.0.1:{listener.getsockname()[1]}", log))
            stack.close()  # the children hold the listening sockets now
            for process, url, log in started:
                wait_until_up(url + "/auth/providers", process, log)
            yield [url for _, url, _ in started]
        finally:
            for process, _, _ in started:
                process.terminate()
            for process, _, _ in started:
                stop(process)


def stop(process: subprocess.Popen[Any]) -> None:
    """Stop ``process``: terminated (again, if it was already), killed if it is still
    there after ten seconds, and waited for."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wait_until_up(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    """Wait until ``url`` (a server's providers route) answers 200; fail with the server's
    log if it exits or takes longer than ``START_TIMEOUT``."""
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if server.poll() is not None:
            raise RuntimeError(f"{url} exited ({server.returncode}):\n{log.read_text()}")
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:  # noqa: S310
                if answer.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not answer in time:\n{log.read_text()}")
        time.sleep(0.05)
