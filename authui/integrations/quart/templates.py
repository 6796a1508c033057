"""Template helpers for the app's own pages: ``SignIn``/``SignOut`` macros, stylesheets."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode, urlsplit

from markupsafe import Markup
from quart import g, request

from authui.cookies import Cookie
from authui.csrf import create_csrf_state
from authui.i18n import translate
from authui.integrations.quart.state import app_state, current_config, keep_cookies
from authui.options import Options, resolve
from authui.providers.credentials import Credentials


async def _csrf_token() -> str:
    """The CSRF token for forms in the app's own pages; issues the cookie when needed."""
    if "authui_csrf" in g:
        token: str = g.authui_csrf
        return token
    config = await current_config()
    options: Options = resolve(config)
    cookies = options.cookies(request.url)
    state = create_csrf_state(
        cookie_value=request.cookies.get(cookies.csrf_token.name),
        body_token=None,
        is_post=False,
        keys=options.keys,
    )
    if state.cookie_value is not None:
        option = cookies.csrf_token
        keep_cookies([Cookie(option.name, state.cookie_value, option.options)])
    g.authui_csrf = state.token
    return state.token


def _same_origin_path(url: str | None) -> str:
    """A redirect target for macros: the given path, or the current page."""
    if url and url.startswith("/") and not url.startswith("//"):
        return url
    if url:
        parts = urlsplit(url)
        if parts.netloc == request.host:
            return url
    return request.full_path.rstrip("?") if request.query_string else request.path


async def sign_in_macro(
    provider: str | None = None,
    sign_in_page: str | None = None,
    redirect_to: str | None = None,
    label: str | None = None,
) -> Markup:
    """``{{ SignIn() }}``: a sign-in button for app templates.

    With a provider that starts from a button (OAuth, email), a form posting to it with
    the CSRF token; otherwise a link to the sign-in page. Quart renders templates
    asynchronously, so the call needs no ``await`` in the template.
    """
    state = app_state()
    config = await current_config()
    options = resolve(config)
    callback_url = _same_origin_path(redirect_to)
    context: dict[str, Any] = {"callback_url": callback_url, "csrf_token": await _csrf_token()}
    target = options.providers.get(provider) if provider else None
    if target is None or isinstance(target, Credentials):
        page = sign_in_page or config.pages.sign_in or f"{state.base_path}/signin"
        separator = "&" if "?" in page else "?"
        context.update(
            action=None, href=f"{page}{separator}{urlencode({'callbackUrl': callback_url})}"
        )
        context["label"] = label or translate("Sign in")
    else:
        context.update(action=f"{state.base_path}/signin/{target.id}", href=None)
        context["label"] = label or translate("Sign in with {name}", name=target.name)
    return options.renderer.snippet("snippets/sign_in.html", **context)


async def sign_out_macro(
    sign_out_page: str | None = None, redirect_to: str | None = None, label: str | None = None
) -> Markup:
    """``{{ SignOut() }}``: a sign-out button (a form with the CSRF token) for app templates."""
    state = app_state()
    options = resolve(await current_config())
    context = {
        "action": sign_out_page or f"{state.base_path}/signout",
        "callback_url": _same_origin_path(redirect_to),
        "csrf_token": await _csrf_token(),
        "label": label or translate("Sign out"),
    }
    return options.renderer.snippet("snippets/sign_out.html", **context)


async def stylesheets() -> list[str]:
    """``{{ authui_stylesheets() }}``: URLs of the active theme pack's stylesheets, so the
    app's own pages can share the look of the auth pages."""
    return list(resolve(await current_config()).renderer.stylesheets)


async def static_url(name: str) -> str:
    """``{{ authui_static("authui.js") }}``: the cache-busted URL of an authui static file
    (``authui.js``, the htmx file, a pack's stylesheet)."""
    return resolve(await current_config()).renderer.assets.url(name)
