"""Template helpers for the app's own pages: ``SignIn``/``SignOut`` macros, stylesheets."""

from __future__ import annotations

from markupsafe import Markup
from quart import g, request

from authui.integrations import buttons
from authui.integrations.calls import cookie_names
from authui.integrations.quart.state import current_config, keep_cookies
from authui.options import resolve


async def _csrf_token() -> str:
    """The CSRF token for forms in the app's own pages; issues the cookie when needed."""
    if "authui_csrf" not in g:
        options = resolve(await current_config())
        table = cookie_names(options, request.url, request.headers.items())
        name = table.csrf_token.name
        g.authui_csrf, cookie = buttons.forms_csrf(options, table, request.cookies.get(name))
        if cookie is not None:
            keep_cookies([cookie])
    token: str = g.authui_csrf
    return token


def _page() -> buttons.PageRequest:
    current = request.full_path.rstrip("?") if request.query_string else request.path
    return buttons.PageRequest(url=request.url, host=request.host, current=current)


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
    return buttons.sign_in_button(
        resolve(await current_config()),
        _page(),
        await _csrf_token(),
        provider=provider,
        sign_in_page=sign_in_page,
        redirect_to=redirect_to,
        label=label,
    )


async def sign_out_macro(
    sign_out_page: str | None = None, redirect_to: str | None = None, label: str | None = None
) -> Markup:
    """``{{ SignOut() }}``: a sign-out button (a form with the CSRF token) for app templates."""
    return buttons.sign_out_button(
        resolve(await current_config()),
        _page(),
        await _csrf_token(),
        sign_out_page=sign_out_page,
        redirect_to=redirect_to,
        label=label,
    )


async def stylesheets() -> list[str]:
    """``{{ authui_stylesheets() }}``: URLs of the active theme pack's stylesheets, so the
    app's own pages can share the look of the auth pages."""
    return list(resolve(await current_config()).renderer.stylesheets)


async def static_url(name: str) -> str:
    """``{{ authui_static("authui.js") }}``: the cache-busted URL of an authui static file
    (``authui.js``, the htmx file, a pack's stylesheet)."""
    return resolve(await current_config()).renderer.assets.url(name)
