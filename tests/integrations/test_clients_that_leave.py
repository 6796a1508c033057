"""Clients that leave in the middle of a request, through the served demo on SQLite (Quart
in hypercorn, Starlette and FastAPI in uvicorn).

A browser that leaves a page whose form it has just posted closes its connection, and
Quart then cancels the request's task, wherever it is. Cancelled inside a database write,
that used to leave SQLite's write lock held by a connection nobody would close again: every
later sign-in failed with "database is locked" (503) until the server restarted. The
clients here post the demo's sign-in forms and hang up after a growing delay, so that the
cancellations land all over the requests' work; the site must then serve sign-ins as
before.
"""

from __future__ import annotations

import os
import secrets
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import httpx
import pytest

from tests.peers.servers import Server, asgi_servers

DEMOS: dict[str, tuple[str, Server]] = {
    "quart": ("demo.app:app", "hypercorn"),
    "starlette": ("demo.starlette_app:app", "uvicorn"),
    "fastapi": ("demo.fastapi_app:app", "uvicorn"),
}
EMAIL_DELAYS_MS = range(0, 114, 6)
"""When each client asking for a link hangs up after sending its request: every 6 ms up to
108 ms, from before the server reads the form to after the link is stored. That is 19
clients (on one address, 127.0.0.1), within the demo's 20 links per client an hour."""
CREDENTIALS_DELAYS_MS = range(0, 120, 30)
"""The same for credentials sign-ins, as the demo user: 4 of them, so that with the sign-in
after them they stay within the 5 failures an account may have in 5 minutes (a sign-in cut
short before it succeeded counts as failed)."""


@pytest.fixture(scope="module", params=list(DEMOS))
def demo(request: pytest.FixtureRequest) -> Iterator[str]:
    """The demo on one framework, on a SQLite file of its own; its URL."""
    app, server = DEMOS[request.param]
    with tempfile.TemporaryDirectory(prefix="authui-leaving-") as folder:
        env = {k: v for k, v in os.environ.items() if not k.startswith("AUTH_")}
        env["AUTH_SECRET"] = secrets.token_urlsafe(32)
        env["AUTH_DATABASE_URL"] = f"sqlite+aiosqlite:///{Path(folder) / 'demo.db'}"
        with asgi_servers(app, 1, env, server=server) as (url,):
            yield url


def csrf(client: httpx.Client, demo: str) -> str:
    """A CSRF token, its cookie kept by ``client``."""
    token: str = client.get(demo + "/auth/csrf").json()["csrfToken"]
    return token


def post_and_leave(demo: str, path: str, form: dict[str, str], cookies: str, delay_ms: int) -> None:
    """Post ``form`` to ``path`` on a socket of our own and close it after ``delay_ms``,
    without reading the answer."""
    parts = urlsplit(demo)
    body = urlencode(form).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nCookie: {cookies}\r\n"
        f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as sock:
        sock.sendall(head.encode() + body)
        time.sleep(delay_ms / 1000)


def test_sign_ins_work_after_clients_left_in_the_middle_of_theirs(demo: str) -> None:
    with httpx.Client(timeout=30) as client:
        token = csrf(client, demo)
        cookies = "; ".join(f"{name}={value}" for name, value in client.cookies.items())
        for number, delay in enumerate(EMAIL_DELAYS_MS):
            form = {"csrfToken": token, "email": f"leaving.{number}@example.com"}
            post_and_leave(demo, "/auth/signin/email", form, cookies, delay)
        for delay in CREDENTIALS_DELAYS_MS:
            form = {"csrfToken": token, "username": "demo", "password": "demo"}
            post_and_leave(demo, "/auth/callback/credentials", form, cookies, delay)

        link = client.post(
            demo + "/auth/signin/email",
            data={"csrfToken": token, "email": "staying@example.com"},
        )
        assert link.status_code == 302, link.text
        assert urlsplit(link.headers["location"]).path == "/auth/verify-request"

        signed_in = client.post(
            demo + "/auth/callback/credentials",
            data={"csrfToken": csrf(client, demo), "username": "demo", "password": "demo"},
        )
        assert signed_in.status_code == 302, signed_in.text
        session = client.get(demo + "/auth/session").json()
        assert session["user"]["name"] == "Demo User"
