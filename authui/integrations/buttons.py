"""The ``SignIn`` / ``SignOut`` template macros, framework-free.

An integration gathers what it knows of the current request (a ``PageRequest``), makes the
CSRF token with ``forms_csrf`` (setting the cookie it may return on the response), and
renders the buttons with ``sign_in_button`` / ``sign_out_button``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from markupsafe import Markup

from authui.cookies import Cookie, CookieTable
from authui.csrf import create_csrf_state
from authui.i18n import Language, speaking, translate
from authui.options import Options
from authui.providers.credentials import Credentials
from authui.urls import with_query


@dataclass(frozen=True, slots=True)
class PageRequest:
    """What the buttons need to know about the page being rendered."""

    url: str
    """The page's absolute URL."""
    host: str
    """The ``Host`` the browser asked for."""
    current: str
    """The page's path and query: where the buttons come back to by default."""
    cookies: Mapping[str, str] = field(default_factory=dict)
    """The request's cookies (the language picked with the pages' menu is one)."""
    accept_language: str | None = None
    """The request's ``Accept-Language``."""


def page_language(options: Options, page: PageRequest) -> Language:
    """The language of the page being rendered, as the auth pages would pick it."""
    return options.language(page.url, page.cookies, page.accept_language)[0]


def forms_csrf(
    options: Options, cookies: CookieTable, cookie_value: str | None
) -> tuple[str, Cookie | None]:
    """The CSRF token for forms in the app's own pages, and the cookie to set with it when
    the browser has none (or a stale one); ``cookies``: the request's cookie names
    (``calls.cookie_names``)."""
    state = create_csrf_state(
        cookie_value=cookie_value, body_token=None, is_post=False, keys=options.keys
    )
    if state.cookie_value is None:
        return state.token, None
    option = cookies.csrf_token
    return state.token, Cookie(option.name, state.cookie_value, option.options)


def same_origin_target(page: PageRequest, url: str | None) -> str:
    """A redirect target for the buttons: ``url`` when it stays on this site, else the
    current page."""
    if url and url.startswith("/") and not url.startswith("//"):
        return url
    if url and urlsplit(url).netloc == page.host:
        return url
    return page.current


def sign_in_button(
    options: Options,
    page: PageRequest,
    csrf_token: str,
    *,
    provider: str | None = None,
    sign_in_page: str | None = None,
    redirect_to: str | None = None,
    label: str | None = None,
    inline: bool = False,
) -> Markup:
    """``{{ SignIn() }}``: with a provider that starts from a button (OAuth, email), a form
    posting to it with the CSRF token; otherwise a link to the sign-in page. ``inline``:
    as wide as its label (for a header or a line of text), not the full width.

    Raises:
        ValueError: ``provider`` names no configured provider (a typo in a template
            should not quietly become a link to the sign-in page).
    """
    target = options.providers.get(provider) if provider else None
    if provider and target is None:
        known = ", ".join(sorted(options.providers)) or "none"
        raise ValueError(f"SignIn({provider!r}): no such provider; the configured ones: {known}")
    callback_url = same_origin_target(page, redirect_to)
    context: dict[str, Any] = {
        "callback_url": callback_url,
        "csrf_token": csrf_token,
        "inline": inline,
    }
    with speaking(page_language(options, page)):
        if target is None or isinstance(target, Credentials):
            sign_in = sign_in_page or options.config.pages.sign_in or f"{options.base_path}/signin"
            href = with_query(sign_in, {"callbackUrl": callback_url})
            context.update(action=None, href=href, label=label or translate("Sign in"))
        else:
            context.update(action=f"{options.base_path}/signin/{target.id}", href=None)
            context["label"] = label or translate("Sign in with {name}", name=target.name)
        return options.renderer.snippet("snippets/sign_in.html", **context)


def sign_out_button(
    options: Options,
    page: PageRequest,
    csrf_token: str,
    *,
    sign_out_page: str | None = None,
    redirect_to: str | None = None,
    label: str | None = None,
    inline: bool = False,
    federated: bool = False,
) -> Markup:
    """``{{ SignOut() }}``: a sign-out button (a form with the CSRF token); ``inline``: as
    wide as its label; ``federated``: sign out of the OpenID provider too, when the session
    came from one with ``federated_logout``."""
    with speaking(page_language(options, page)):
        context = {
            "action": sign_out_page or f"{options.base_path}/signout",
            "callback_url": same_origin_target(page, redirect_to),
            "csrf_token": csrf_token,
            "label": label or translate("Sign out"),
            "inline": inline,
            "federated": federated,
        }
        return options.renderer.snippet("snippets/sign_out.html", **context)
