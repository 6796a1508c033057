"""The authui demo on Starlette (``scripts/demo starlette``): the same site as the Quart
demo, from the same settings and templates, on authui's Starlette integration.

``AuthApp`` serves the auth routes at ``/auth``; ``AuthMiddleware`` reads the session once
per request (``request.state.auth``) and keeps ``/protected`` and ``/profile`` for signed-in
users.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from authui.starlette import (
    AuthApp,
    AuthMiddleware,
    get_access_token,
    get_sign_in_facts,
    setup_templates,
)
from demo import settings


def page_context(request: Request) -> dict[str, Any]:
    return settings.page_context(request.cookies, request.url.path)


templates = setup_templates(
    Jinja2Templates(directory=settings.TEMPLATES, context_processors=[page_context])
)


async def home(request: Request) -> Response:
    return templates.TemplateResponse(request, "home.html")


async def protected(request: Request) -> Response:
    return templates.TemplateResponse(request, "protected.html")


async def secure(request: Request) -> Response:
    """Only for a sign-in with two-step verification; otherwise its set-up (or a sign-in
    with it), coming back here."""
    if not (await get_sign_in_facts(request)).multi_factor:
        return RedirectResponse("/auth/account/two-factor?callbackUrl=/secure", status_code=302)
    return templates.TemplateResponse(request, "secure.html")


async def profile(request: Request) -> Response:
    return templates.TemplateResponse(request, "profile.html", profile_context(request))


async def profile_userinfo(request: Request) -> Response:
    """The profile with what the OpenID provider's userinfo answers to a fresh access token."""
    context = profile_context(request)
    provider = settings.FRESH_TOKEN_PROVIDER
    if provider is not None:
        context |= await settings.userinfo_context(lambda: get_access_token(request, provider.id))
    return templates.TemplateResponse(request, "profile.html", context)


def profile_context(request: Request) -> dict[str, Any]:
    return {
        "session": request.state.auth,
        "oauth": settings.OAUTH_BUTTONS,
        "fresh_token_provider": settings.FRESH_TOKEN_PROVIDER,
    }


async def mailbox(request: Request) -> Response:
    """Development only: the magic links the console sender "sent", newest first."""
    messages = settings.mailbox_messages()
    status = 200 if messages is not None else 404
    return templates.TemplateResponse(
        request, "mailbox.html", {"messages": messages}, status_code=status
    )


async def choose_theme(request: Request) -> Response:
    """Remember the visitor's theme and colour scheme (a preference: a GET, no CSRF)."""
    target, cookies = settings.theme_choice(request.query_params, str(request.url))
    response = RedirectResponse(target, status_code=303)
    for name, value in cookies.items():
        response.set_cookie(name, value, samesite="lax", httponly=True)
    return response


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    """Store the demo user at start-up; close the database at shutdown."""
    await settings.seed_demo_user()
    yield
    await settings.ADAPTER.close()


app = Starlette(
    routes=[
        Route("/", home),
        Route("/protected", protected),
        Route("/secure", secure),
        Route("/profile", profile),
        Route("/profile/userinfo", profile_userinfo),
        Route("/dev/mailbox", mailbox),
        Route("/theme", choose_theme),
        Mount("/auth", AuthApp(settings.config_for, base_path="/auth")),
        Mount("/static", StaticFiles(directory=settings.STATIC), name="static"),
    ],
    middleware=[
        Middleware(
            AuthMiddleware,
            config=settings.config_for,
            protect=["/protected", "/secure", "/profile"],
        )
    ],
    lifespan=lifespan,
)
