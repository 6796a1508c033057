"""authui in the app's own Jinja templates (Starlette's and FastAPI's ``Jinja2Templates``)."""

from __future__ import annotations

from typing import Any

from jinja2 import ChoiceLoader, pass_context
from jinja2.runtime import Context
from markupsafe import Markup
from starlette.requests import Request
from starlette.templating import Jinja2Templates

from authui.integrations import buttons
from authui.integrations.asgi import text_headers
from authui.integrations.calls import cookie_names
from authui.options import Options, resolve
from authui.pages.app_templates import PackTemplates, rendering_with
from authui.starlette.requests import core_request, url_of
from authui.starlette.state import RequestAuth, need_middleware


def setup_templates(templates: Jinja2Templates) -> Jinja2Templates:
    """Give ``templates`` what authui's Quart integration gives Quart's: ``auth`` (the
    session) and ``user`` in every template, the ``SignIn()`` / ``SignOut()`` macros,
    ``authui_stylesheets()``, ``authui_html_attrs()`` and ``authui_static(name)``. Needs
    ``AuthMiddleware``.

    Example:
        ```python
        templates = setup_templates(Jinja2Templates(directory="templates"))
        ```
    """
    templates.context_processors.append(_auth_context)
    own = templates.env.loader
    templates.env.loader = ChoiceLoader([own, PackTemplates()]) if own else PackTemplates()
    templates.env.globals.update(
        SignIn=_sign_in,
        SignOut=_sign_out,
        authui_stylesheets=_stylesheets,
        authui_html_attrs=_html_attributes,
        authui_static=_static_url,
    )
    return templates


def _request_auth(request: Request) -> RequestAuth:
    here = RequestAuth.of(request.scope)
    if here is None:
        raise need_middleware("authui in templates")
    return here


def _auth_context(request: Request) -> dict[str, Any]:
    here = _request_auth(request)
    rendering_with(resolve(here.config).renderer)
    session = here.session
    return {"auth": session, "user": (session or {}).get("user")}


def _page(context: Context) -> tuple[Options, buttons.PageRequest, str]:
    """The request's options, what the buttons need of the page, and the forms' CSRF token
    (its cookie queued for the response when the browser has none)."""
    request: Request = context["request"]
    here = _request_auth(request)
    options = resolve(here.config)
    url = url_of(request)
    if here.csrf_token is None:
        table = cookie_names(options, url, text_headers(request.scope))
        # authui's cookie parser: Starlette's leaves the token's "%7C" undecoded
        cookies = core_request(request, b"").cookies
        here.csrf_token, cookie = buttons.forms_csrf(
            options, table, cookies.get(table.csrf_token.name)
        )
        if cookie is not None:
            here.add_cookies([cookie])
    query = request.url.query
    current = request.url.path + (f"?{query}" if query else "")
    page = buttons.PageRequest(
        url=url,
        host=request.headers.get("host", ""),
        current=current,
        cookies=core_request(request, b"").cookies,
        accept_language=request.headers.get("accept-language"),
    )
    return options, page, here.csrf_token


@pass_context
def _sign_in(
    context: Context,
    provider: str | None = None,
    sign_in_page: str | None = None,
    redirect_to: str | None = None,
    label: str | None = None,
    inline: bool = False,
) -> Markup:
    """``{{ SignIn() }}``: a sign-in button (a form for OAuth and email providers, a link
    to the sign-in page otherwise); ``inline``: as wide as its label."""
    options, page, token = _page(context)
    return buttons.sign_in_button(
        options,
        page,
        token,
        provider=provider,
        sign_in_page=sign_in_page,
        redirect_to=redirect_to,
        label=label,
        inline=inline,
    )


@pass_context
def _sign_out(
    context: Context,
    sign_out_page: str | None = None,
    redirect_to: str | None = None,
    label: str | None = None,
    inline: bool = False,
    federated: bool = False,
) -> Markup:
    """``{{ SignOut() }}``: a sign-out button (a form with the CSRF token); ``inline``: as
    wide as its label; ``federated``: sign out of the OpenID provider too."""
    options, page, token = _page(context)
    return buttons.sign_out_button(
        options,
        page,
        token,
        sign_out_page=sign_out_page,
        redirect_to=redirect_to,
        label=label,
        inline=inline,
        federated=federated,
    )


@pass_context
def _stylesheets(context: Context) -> list[str]:
    """``{{ authui_stylesheets() }}``: the theme pack's stylesheet URLs."""
    return list(resolve(_request_auth(context["request"]).config).renderer.stylesheets)


@pass_context
def _html_attributes(context: Context) -> Markup:
    """``<html {{ authui_html_attrs() }}>``: the request's language and its direction, the
    pack's document class and colour scheme."""
    request: Request = context["request"]
    options = resolve(_request_auth(request).config)
    cookies = core_request(request, b"").cookies
    accept_language = request.headers.get("accept-language")
    language, _ = options.language(url_of(request), cookies, accept_language)
    return options.renderer.html_attributes(language)


@pass_context
def _static_url(context: Context, name: str) -> str:
    """``{{ authui_static("authui.js") }}``: an authui static file's cache-busted URL."""
    return resolve(_request_auth(context["request"]).config).renderer.assets.url(name)
