"""Starting the benchmarked servers: Python apps in their ASGI server, Auth.js in node."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AUTHJS = ROOT / "bench" / "authjs"
START_TIMEOUT = 30.0


@dataclass(frozen=True)
class ServerSpec:
    """One server to start: ``kind`` is "hypercorn", "uvicorn" or "node"."""

    kind: str
    target: str
    """The ASGI app (``bench.apps:quart_auth``) or the node script."""
    env: dict[str, str] = field(default_factory=dict)
    workers: int = 1


@dataclass(frozen=True)
class Server:
    """A started server: its base URL and the process running it."""

    url: str
    pid: int

    def cpu_seconds(self) -> float:
        """CPU time (user and system) the server's processes have used so far: the
        process and its descendants (uvicorn's workers)."""
        return sum(_cpu_seconds(pid) for pid in (self.pid, *_descendants(self.pid)))


_TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    """The fields of ``/proc/<pid>/stat`` after the command name."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    return text.rsplit(")", 1)[1].split()


def _cpu_seconds(pid: int) -> float:
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / _TICKS if fields else 0.0


def _descendants(pid: int) -> list[int]:
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields:
                parents[int(entry.name)] = int(fields[1])
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _command(spec: ServerSpec, port: int) -> list[str]:
    if spec.kind == "node":
        return ["node", str(AUTHJS / spec.target)]
    if spec.kind == "hypercorn":
        command = [sys.executable, "-m", "hypercorn", "--bind", f"127.0.0.1:{port}"]
        command += ["--worker-class", "uvloop", "--workers", str(spec.workers)]
        return [*command, "--log-level", "warning", spec.target]
    command = [sys.executable, "-m", "uvicorn", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--workers", str(spec.workers), "--log-level", "warning", "--no-access-log"]
    return [*command, spec.target]


@contextlib.contextmanager
def running(spec: ServerSpec) -> Iterator[Server]:
    """Start ``spec`` on a free port; yield it once ``/hello`` answers."""
    port = _free_port()
    env = {**os.environ, **spec.env, "PORT": str(port)}
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            _command(spec, port), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_until_up(url, process, log)
            try:
                yield Server(url, process.pid)
            except RuntimeError as failure:  # a measurement refused: show why the server says
                raise RuntimeError(f"{failure}\n{spec.target}'s log:\n{_text(log)}") from None
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_until_up(url: str, process: subprocess.Popen[bytes], log: object) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"{url} exited ({process.returncode}):\n{_text(log)}")
        try:
            with urllib.request.urlopen(url + "/hello", timeout=2) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not answer in time:\n{_text(log)}")
        time.sleep(0.05)


def _text(log: object) -> str:
    seek = getattr(log, "seek", None)
    read = getattr(log, "read", None)
    if seek is None or read is None:
        return ""
    seek(0)
    data: bytes = read()
    return data.decode(errors="replace")[-4000:]
