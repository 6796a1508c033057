"""A small Quart app for the browser tests: ``/auth/*`` served by the core, pages using authui.js.

Sign in as ``ada`` / ``correct horse``. The browser tests (``tests/e2e``) run it in a real
ASGI server (``hypercorn tests.peers.e2e_app:app``). It bridges Quart to the core the way
``demo/app.py`` does, copied rather than imported so that the demo can change freely.

Pages: ``/`` and ``/welcome`` load authui.js and show the session (``#session`` holds it as
JSON, ``null`` when signed out).
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from markupsafe import Markup
from quart import Quart, Response, request

import authui
from authui import AuthConfig, Credentials, set_env_defaults, validate_config
from authui.options import resolve

USER = {"id": "1", "name": "Ada Lovelace", "email": "ada@example.com"}
PASSWORD = "correct horse"


async def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    if credentials.get("username") == "ada" and credentials.get("password") == PASSWORD:
        return dict(USER)
    return None


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
validate_config(config)

SCRIPT_URL = resolve(config).renderer.assets.url("authui.js")
"""Where the core serves authui.js (an absolute path under the base path, hashed name)."""

app = Quart(__name__)


async def core_request(method: str | None = None, path: str | None = None) -> authui.Request:
    """The current Quart request as an authui request (optionally another method/path)."""
    url = request.url if path is None else request.host_url.rstrip("/") + path
    return authui.Request.build(
        method or request.method,
        url,
        headers=list(request.headers.items()),
        body=await request.get_data() if method is None else b"",
    )


def quart_response(response: authui.Response) -> Response:
    result = Response(response.body, status=response.status)
    for name, value in response.headers:
        if name.lower() == "content-type":
            result.headers["Content-Type"] = value
        else:
            result.headers.add(name, value)
    return result


async def call_core(core: authui.Request) -> authui.Response:
    response = await authui.Auth(core, config)
    if not isinstance(response, authui.Response):
        raise TypeError("the e2e config does not use raw mode")
    return response


@app.route("/auth/<path:rest>", methods=["GET", "POST"])
async def auth_routes(rest: str) -> Response:
    return quart_response(await call_core(await core_request()))


PAGE = Markup(
    "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>{title}</title>"
    '<meta name="authui-base-path" content="/auth">'
    '<script src="{script}" defer></script></head>'
    "<body><h1>{title}</h1><pre id=session>{session}</pre></body></html>"
)


@app.route("/")
@app.route("/welcome")
async def page() -> Response:
    """A page showing the session; it keeps the cookies the session call refreshes."""
    answer = await call_core(await core_request("GET", "/auth/session"))
    session = answer.data() if answer.status == 200 else None
    title = "Welcome" if request.path == "/welcome" else "Home"
    result = quart_response(answer)
    result.set_data(
        str(PAGE.format(title=title, script=SCRIPT_URL, session=json.dumps(session, indent=1)))
    )
    result.headers["Content-Type"] = "text/html; charset=utf-8"
    result.headers["Cache-Control"] = "no-store"
    result.status_code = 200
    return result
