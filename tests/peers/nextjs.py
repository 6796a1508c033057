"""The runnable Next.js + FastAPI example (``examples/nextjs-fastapi``), served for tests.

- :func:`install` runs ``npm ci`` in the example's ``web/`` when ``node_modules`` is missing;
  :func:`build` runs ``next build`` with ``API_URL`` (the rewrites are fixed then).
- :func:`next_server` runs ``next start`` (a production server: ``NODE_ENV=production``)
  on 127.0.0.1 and a free port.
- :func:`reverse_proxy` puts a plain reverse proxy in front of a server, as nginx does by
  default: the request goes on with the upstream's ``Host`` and no ``X-Forwarded-*``
  header, so the Next.js app learns its public origin only from ``AUTH_URL``. Run as
  ``python -m tests.peers.nextjs FD UPSTREAM``, it serves on the inherited socket ``FD``.

The FastAPI service is ``examples/nextjs-fastapi/api/main.py``; serve it with
:func:`tests.peers.servers.asgi_servers` (``cwd=API``).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path

from aiohttp import ClientSession, DummyCookieJar, web
from multidict import CIMultiDict

from tests.peers.servers import stop, wait_until_up

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "nextjs-fastapi"
WEB = EXAMPLE / "web"
API = EXAMPLE / "api"
API_APP = "main:app"
NEXT = WEB / "node_modules" / "next" / "dist" / "bin" / "next"
INSTALL_TIMEOUT = 300.0
BUILD_TIMEOUT = 300.0
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)
"""Headers a proxy does not pass on as they are (``host`` and the length it sets anew)."""
CLIENT = web.AppKey("client", ClientSession)


NODE_VERSION = (20, 9)
"""The oldest Node.js that Next.js 16 runs on."""


def missing() -> str | None:
    """Why the example cannot be built here, or ``None`` when it can."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (not on PATH)"
    version = subprocess.run(
        ["node", "--version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    found = tuple(int(part) for part in re.findall(r"\d+", version)[:2])
    if found < NODE_VERSION:
        return f"node {version or '?'} is older than {'.'.join(map(str, NODE_VERSION))}"
    return None


def node_env(**extra: str) -> dict[str, str]:
    """The environment for node: the caller's, less its ``AUTH_*`` and ``API_URL``, with
    telemetry off and ``extra`` added."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("AUTH_", "NEXTAUTH_")) and k not in {"API_URL", "NODE_ENV"}
    }
    return {**env, "NEXT_TELEMETRY_DISABLED": "1", **extra}


def _run(command: list[str], env: Mapping[str, str], timeout: float) -> None:
    done = subprocess.run(
        command,
        cwd=WEB,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}{done.stderr}"
        )


def install() -> None:
    """``npm ci`` in ``web/``, unless its ``node_modules`` is there already."""
    if not (NEXT.is_file() and (WEB / "node_modules" / "next-auth").is_dir()):
        _run(["npm", "ci", "--silent", "--no-audit", "--no-fund"], node_env(), INSTALL_TIMEOUT)


def build(api_url: str) -> None:
    """``next build`` in ``web/`` with the API at ``api_url`` (into ``web/.next``)."""
    _run(["node", str(NEXT), "build"], node_env(API_URL=api_url), BUILD_TIMEOUT)


def free_port() -> int:
    """A port free on 127.0.0.1 now (``next start`` binds its own socket)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def _process(
    command: list[str],
    env: Mapping[str, str],
    cwd: Path,
    ready: str,
    pass_fds: tuple[int, ...] = (),
) -> Iterator[None]:
    """Run ``command`` until the block ends, once ``ready`` answers; its output goes to a log
    shown if it fails to start."""
    with tempfile.TemporaryDirectory(prefix="authui-nextjs-") as tmp:
        log = Path(tmp) / "server.log"
        with log.open("wb") as log_file:
            process = subprocess.Popen(
                command,
                cwd=cwd,
                env=dict(env),
                stdout=log_file,
                stderr=subprocess.STDOUT,
                pass_fds=pass_fds,
            )
        try:
            wait_until_up(ready, process, log)
            yield
        finally:
            stop(process)


@contextlib.contextmanager
def next_server(env: Mapping[str, str]) -> Iterator[str]:
    """``next start`` of the built app on 127.0.0.1 and a free port, with ``env`` added to
    :func:`node_env`; yields its URL."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = ["node", str(NEXT), "start", "--hostname", "127.0.0.1", "--port", str(port)]
    with _process(command, node_env(**env), WEB, url + "/api/auth/providers"):
        yield url


@contextlib.contextmanager
def listening_socket() -> Iterator[socket.socket]:
    """A socket listening on 127.0.0.1 and a free port, for :func:`reverse_proxy`: its port
    is known before the proxy starts (the app behind it needs it as ``AUTH_URL``)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(128)
        yield listener


@contextlib.contextmanager
def reverse_proxy(listener: socket.socket, upstream: str) -> Iterator[None]:
    """A reverse proxy to ``upstream``, serving on ``listener`` (which it takes over) until
    the block ends."""
    fd = listener.fileno()
    port = listener.getsockname()[1]
    command = [sys.executable, "-m", "tests.peers.nextjs", str(fd), upstream]
    ready = f"http://127.0.0.1:{port}/api/auth/providers"
    with _process(command, os.environ, ROOT, ready, pass_fds=(fd,)):
        listener.close()  # the proxy holds it now
        yield


def serve_proxy(fd: int, upstream: str) -> None:
    """Serve a reverse proxy to ``upstream`` on the listening socket ``fd`` until stopped."""

    async def forward(request: web.Request) -> web.Response:
        client = request.app[CLIENT]
        body = await request.read()
        headers = CIMultiDict(
            (k, v) for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP
        )
        async with client.request(
            request.method,
            upstream + request.path_qs,
            headers=headers,
            data=body or None,
            allow_redirects=False,
        ) as answer:
            back = CIMultiDict(
                (k, v) for k, v in answer.headers.items() if k.lower() not in HOP_BY_HOP
            )
            return web.Response(status=answer.status, headers=back, body=await answer.read())

    async def client_context(app: web.Application) -> AsyncIterator[None]:
        # No cookie jar: the browser's cookies go through, none are kept here.
        async with ClientSession(cookie_jar=DummyCookieJar(), auto_decompress=False) as client:
            app[CLIENT] = client
            yield

    app = web.Application()
    app.cleanup_ctx.append(client_context)
    app.router.add_route("*", "/{path:.*}", forward)
    web.run_app(app, sock=socket.socket(fileno=fd), print=None, access_log=None)


if __name__ == "__main__":
    serve_proxy(int(sys.argv[1]), sys.argv[2])
