"""The authui demo: a Quart app whose /auth routes are served by the core.

Sign in as ``demo`` / ``demo``. Run it with ``scripts/demo``. Without ``AUTH_SECRET`` it runs
in development mode, which makes up a secret and says so in the log.
"""

from __future__ import annotations

import os
from typing import Any

from markupsafe import Markup
from quart import Quart, Response, request

import authui
from authui import AuthConfig, Credentials, CredentialsSignin, set_env_defaults, validate_config


class UnknownUser(CredentialsSignin):
    code = "unknown_user"


USERS = {"demo": {"id": "1", "name": "Demo User", "email": "demo@example.com", "password": "demo"}}


async def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    user = USERS.get(str(credentials.get("username", "")))
    if user is None:
        raise UnknownUser()
    if credentials.get("password") != user["password"]:
        return None
    return {k: v for k, v in user.items() if k != "password"}


config = set_env_defaults(
    {"AUTH_DEVELOPMENT": "true", **os.environ},
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

validate_config(config)  # stop here, at start-up, if the configuration is broken

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
        raise TypeError("the demo config does not use raw mode")
    return response


@app.route("/auth/<path:rest>", methods=["GET", "POST"])
async def auth_routes(rest: str) -> Response:
    return quart_response(await call_core(await core_request()))


@app.route("/")
async def home() -> Response:
    answer = await call_core(await core_request("GET", "/auth/session"))
    session = answer.data() if answer.status == 200 else None
    if session:
        user = session["user"]
        body = Markup(
            "<p>Signed in as <strong>{}</strong> ({}).</p>"
            '<p><a href="/auth/signout">Sign out</a></p>'
        ).format(user.get("name"), user.get("email"))
    else:
        body = Markup(
            '<p>Not signed in.</p><p><a href="/auth/signin">Sign in</a> as demo / demo.</p>'
        )
    page = Markup(
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>authui demo</title>"
        "</head><body><h1>authui demo</h1>{}<p><a href='/auth/session'>/auth/session</a></p>"
        "</body></html>"
    ).format(body)
    result = quart_response(answer)
    result.set_data(str(page))
    result.headers["Content-Type"] = "text/html; charset=utf-8"
    result.status_code = 200
    return result
