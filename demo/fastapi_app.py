"""The authui demo on FastAPI (``scripts/demo fastapi``): the same site as the Quart demo,
from the same settings and templates (and the Starlette demo's ``Jinja2Templates``), on
authui's FastAPI integration.

``AuthApp`` serves the auth routes at ``/auth``; ``AuthMiddleware`` reads the session once
per request; the protected views ask for it with the ``RequireSession``
dependency, and ``/api/me`` shows the JSON side (401 without a session).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

from authui.fastapi import (
    AuthApp,
    AuthMiddleware,
    RequireMfaSession,
    RequireSession,
    Session,
    get_access_token,
)
from demo import settings
from demo.starlette_app import choose_theme, lifespan, mailbox, templates

app = FastAPI(title="authui demo", lifespan=lifespan)
app.add_middleware(AuthMiddleware, config=settings.config_for)
app.mount("/auth", AuthApp(settings.config_for, base_path="/auth"))
app.mount("/static", StaticFiles(directory=settings.STATIC), name="static")


@app.get("/", response_class=HTMLResponse)
async def home(request: Request) -> Response:
    return templates.TemplateResponse(request, "home.html")


@app.get("/secure", response_class=HTMLResponse)
async def secure(request: Request, session: RequireMfaSession) -> Response:
    return templates.TemplateResponse(request, "secure.html")


@app.get("/protected", response_class=HTMLResponse)
async def protected(request: Request, session: RequireSession) -> Response:
    return templates.TemplateResponse(request, "protected.html")


@app.get("/profile", response_class=HTMLResponse)
async def profile(request: Request, session: RequireSession) -> Response:
    return templates.TemplateResponse(request, "profile.html", profile_context(session))


@app.get("/profile/userinfo", response_class=HTMLResponse)
async def profile_userinfo(request: Request, session: RequireSession) -> Response:
    """The profile with what the OpenID provider's userinfo answers to a fresh access token."""
    context = profile_context(session)
    provider = settings.FRESH_TOKEN_PROVIDER
    if provider is not None:
        context |= await settings.userinfo_context(lambda: get_access_token(request, provider.id))
    return templates.TemplateResponse(request, "profile.html", context)


def profile_context(session: Session) -> dict[str, Any]:
    return {
        "session": session,
        "oauth": settings.OAUTH_BUTTONS,
        "fresh_token_provider": settings.FRESH_TOKEN_PROVIDER,
    }


@app.get("/api/me")
async def me(session: RequireSession) -> Session:
    """The session as JSON: 401 for a caller without one."""
    return session


# The development mailbox and the theme switcher are the Starlette demo's views, as they are.
app.add_api_route("/dev/mailbox", mailbox, response_class=HTMLResponse)
app.add_api_route("/theme", choose_theme)
