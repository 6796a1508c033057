"""The authui demo on Quart (``scripts/demo``): a public home, a protected page, a profile
page showing the session, sign-in with the demo credentials user (``demo`` / ``demo``),
magic links, passkeys, OAuth providers from the environment, a theme switcher, and the
account center (``/auth/account``), which the header links to once signed in.

The settings it shares with the Starlette and FastAPI variants are in ``demo/settings.py``.
"""

from __future__ import annotations

from typing import Any

from quart import Quart, Response, render_template, request

from authui.quart import AuthUI
from demo import settings

app = Quart(__name__, template_folder=str(settings.TEMPLATES), static_folder=str(settings.STATIC))
auth_ui = AuthUI(app, settings.config_for, base_path="/auth")
auth = auth_ui.auth

app.before_serving(settings.seed_demo_user)


@app.after_serving
async def close_database() -> None:
    await settings.ADAPTER.close()


@app.context_processor
async def page_context() -> dict[str, Any]:
    return settings.page_context(request.cookies, request.path)


@app.get("/")
async def home() -> str:
    return await render_template("home.html")


@app.get("/protected")
@auth.required
async def protected() -> str:
    return await render_template("protected.html")


@app.get("/secure")
@auth.required(mfa=True)
async def secure() -> str:
    return await render_template("secure.html")


@app.get("/profile")
@auth.required
async def profile() -> str:
    return await render_template("profile.html", **await profile_context())


@app.get("/profile/userinfo")
@auth.required
async def profile_userinfo() -> str:
    """The profile with what the OpenID provider's userinfo answers to a fresh access token."""
    provider = settings.FRESH_TOKEN_PROVIDER
    if provider is None:
        return await render_template("profile.html", **await profile_context())
    found = await settings.userinfo_context(lambda: auth.get_access_token(provider.id))
    return await render_template("profile.html", **await profile_context(), **found)


async def profile_context() -> dict[str, Any]:
    return {
        "session": await auth(),
        "oauth": settings.OAUTH_BUTTONS,
        "fresh_token_provider": settings.FRESH_TOKEN_PROVIDER,
    }


@app.get("/dev/mailbox")
async def mailbox() -> tuple[str, int] | str:
    """Development only: the magic links the console sender "sent", newest first."""
    messages = settings.mailbox_messages()
    page = await render_template("mailbox.html", messages=messages)
    return page if messages is not None else (page, 404)


@app.get("/theme")
async def choose_theme() -> Response:
    """Remember the visitor's theme and colour scheme (a preference: a GET, no CSRF)."""
    target, cookies = settings.theme_choice(request.args, request.url)
    response = Response("", status=303, headers={"Location": target})
    for name, value in cookies.items():
        response.set_cookie(name, value, samesite="Lax", httponly=True)
    return response
