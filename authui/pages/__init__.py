"""The built-in pages, rendered from a theme pack with Jinja.

Template lookup for ``authui/<name>.html``: the app's own template folders first (so an
app's ``templates/authui/signin.html`` wins), then the chosen pack, then its parents down
to ``base``. A pack's own file is also reachable as ``authui-<pack>/<name>.html``, for an
override that extends the original. One environment per configuration serves every
request.
"""

from __future__ import annotations

import secrets
from collections import ChainMap
from collections.abc import Mapping
from typing import Any

from jinja2 import (
    BaseLoader,
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    PrefixLoader,
    select_autoescape,
)
from markupsafe import Markup, escape

from authui.config import Theme
from authui.errors import AuthError
from authui.http import InternalResponse
from authui.i18n import N_, Language, current, translate, translate_plural
from authui.i18n.menu import language_menu
from authui.pages.assets import STATIC_PREFIX, Assets
from authui.pages.packs import ThemePack, pack_chain

HTML = ("Content-Type", "text/html")

_TRY_ANOTHER = N_("Try signing in with a different account.")
SIGNIN_ERRORS: Mapping[str, str] = {
    "default": N_("Unable to sign in."),
    "Signin": _TRY_ANOTHER,
    "OAuthSignin": _TRY_ANOTHER,
    "OAuthCallbackError": _TRY_ANOTHER,
    "OAuthCreateAccount": _TRY_ANOTHER,
    "EmailCreateAccount": _TRY_ANOTHER,
    "Callback": _TRY_ANOTHER,
    "OAuthAccountNotLinked": N_(
        "To confirm your identity, sign in with the same account you used originally."
    ),
    "EmailSignin": N_("The e-mail could not be sent."),
    "EmailSignInError": N_("The e-mail could not be sent."),
    "EmailSignInError:invalid_email": N_("Enter a valid email address."),
    "CredentialsSignin": N_("Sign in failed. Check the details you provided are correct."),
    "CredentialsSignin:email_not_verified": (
        N_("Confirm your email address first: we sent you a new link. Follow it, then sign in.")
    ),
    "OAuthSignInError": N_(
        "The sign-in with this provider could not be started. Try again, or sign in another way."
    ),
    "MissingCSRF": N_("The sign-in form had expired. Please try again."),
    "AccountNotLinked": N_(
        "This passkey or email address belongs to another account. Sign "
        "in with that account first; you can add a passkey to it afterwards."
    ),
    "AuthError": N_("Something went wrong while signing in. Try again, or sign in another way."),
    "TooManyAttempts": N_("Too many attempts. Wait a few minutes, then try again."),
    "SessionRequired": N_("Please sign in to access this page."),
    "ReauthenticationFailed": N_(
        "That sign-in was not yours: sign in again with one of your "
        "own ways in. Nothing was changed."
    ),
}


def error_message(error: AuthError) -> str:
    """The sign-in page's message for a raised error (its ``type`` and ``code``); for a
    throttled attempt, how long to wait (translated here, as it has a number in it)."""
    if error.type == "TooManyAttempts" and error.retry_after:
        minutes = (error.retry_after + 59) // 60
        return translate_plural(
            "Too many attempts. Try again in {n} minute.",
            "Too many attempts. Try again in {n} minutes.",
            minutes,
        )
    return signin_error_message(error.type, getattr(error, "code", None))


def signin_error_message(error: str, code: str | None = None) -> str:
    """The sign-in page's message for an ``error`` value and its ``code``: the sign-in
    page's own, else the error page's text for that value, else the default."""
    found = (SIGNIN_ERRORS.get(f"{error}:{code}") if code else None) or SIGNIN_ERRORS.get(error)
    if found is None and error in ERROR_PAGES:
        found = ERROR_PAGES[error][2]
    return found or SIGNIN_ERRORS["default"]


ERROR_PAGES: Mapping[str, tuple[int, str, str, bool]] = {
    "Configuration": (
        500,
        N_("Server error"),
        N_(
            "There is a problem with the server configuration. "
            "Check the server logs for more information."
        ),
        False,
    ),
    "AccessDenied": (403, N_("Access Denied"), N_("You do not have permission to sign in."), True),
    "WebAuthnVerificationError": (
        400,
        N_("Passkey not accepted"),
        N_(
            "The passkey request was already used, has expired, or its answer could not be "
            "verified. Start again and use your passkey once more."
        ),
        True,
    ),
    "PasskeyAlreadyRegistered": (
        409,
        N_("Passkey already registered"),
        N_(
            "This passkey is already registered with this site. Sign in with it, or add a "
            "different passkey."
        ),
        True,
    ),
    "AccountNotLinked": (409, N_("Unable to sign in"), SIGNIN_ERRORS["AccountNotLinked"], True),
    "OAuthAccountNotLinked": (
        409,
        N_("Unable to sign in"),
        SIGNIN_ERRORS["OAuthAccountNotLinked"],
        True,
    ),
    "OAuthCallbackError": (
        400,
        N_("Unable to sign in"),
        N_(
            "The sign-in provider did not complete the sign-in. Try again, or sign in with a "
            "different account."
        ),
        True,
    ),
    "CredentialsSignin": (
        401,
        N_("Unable to sign in"),
        SIGNIN_ERRORS["CredentialsSignin"],
        True,
    ),
    "EmailSignInError": (
        400,
        N_("Unable to sign in"),
        N_(
            "The sign-in e-mail could not be sent. Check the address, wait a moment, and try again."
        ),
        True,
    ),
    "MissingCSRF": (403, N_("Unable to sign in"), SIGNIN_ERRORS["MissingCSRF"], True),
    "Verification": (
        403,
        N_("Unable to sign in"),
        N_(
            "The sign in link is no longer valid. It may have been used already or it may have "
            "expired."
        ),
        True,
    ),
    "ServiceUnavailable": (
        503,
        N_("Temporarily unavailable"),
        N_(
            "The service is temporarily unavailable. Nothing was changed: wait a moment, then "
            "try again."
        ),
        False,
    ),
    "AdapterError": (
        500,
        N_("Unable to sign in"),
        N_("The server could not complete your sign-in. Nothing was changed: try again."),
        True,
    ),
    "BadRequest": (
        400,
        N_("Bad request"),
        N_(
            "The address you followed is not one this site can answer. Go back and try again "
            "from the site's own pages."
        ),
        False,
    ),
    "InvalidHost": (
        400,
        N_("Bad request"),
        N_(
            "This site does not answer for the address your browser used. Check the address, "
            "or go to the site's own address."
        ),
        False,
    ),
    "EmailChangeLink": (
        403,
        N_("Address not changed"),
        N_(
            "This address-change link no longer works: it was used already, or it has expired. "
            "Ask for the change again on your profile page."
        ),
        False,
    ),
    "PasswordLink": (
        403,
        N_("Link no longer works"),
        N_(
            "This link was used already, or it has expired: each works once, for a short time. "
            "Ask for a new one."
        ),
        True,
    ),
    "EmailTaken": (
        409,
        N_("Address not changed"),
        N_("This address now belongs to another account, so your address was not changed."),
        False,
    ),
    "ReauthenticationFailed": (
        403,
        N_("Unable to sign in"),
        SIGNIN_ERRORS["ReauthenticationFailed"],
        True,
    ),
    "ReauthenticationRequired": (
        403,
        N_("Sign in again first"),
        N_(
            "Adding a way to sign in to your account needs a recent sign-in. Sign in again, "
            "then try once more."
        ),
        True,
    ),
    "TooManyAttempts": (
        429,
        N_("Too many attempts"),
        N_("There were too many sign-in attempts. Wait a few minutes, then try again."),
        True,
    ),
}
"""``error`` value → (status, heading, text, whether to offer a sign-in button)."""

UNKNOWN_ERROR_PAGE = (
    200,
    N_("Error"),
    N_(
        "Something went wrong. Go back to the site and try again; if it happens again, "
        "contact the site's owner."
    ),
    False,
)
"""The error page for an ``error`` value ``ERROR_PAGES`` does not know (Auth.js's generic
"Error", 200, with a link to the site)."""


def security_headers(nonce: str) -> list[tuple[str, str]]:
    """Headers of every page: a nonce-based CSP without inline script, no framing, no
    referrer (page URLs may carry tokens), no caching."""
    csp = (
        "default-src 'self'; "
        f"script-src 'self' 'nonce-{nonce}'; "
        f"style-src 'self' 'nonce-{nonce}'; "
        "img-src 'self' data: https:; "
        "connect-src 'self'; "
        "object-src 'none'; "
        "base-uri 'none'; "
        "frame-ancestors 'none'"
    )
    return [
        ("Content-Security-Policy", csp),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Content-Type-Options", "nosniff"),
        ("Cache-Control", "no-store"),
    ]


THEME_STYLESHEET = "theme.css"
"""The generated stylesheet of the configured colours, after the pack's."""


def theme_stylesheet(theme: Theme) -> str:
    """The ``Theme``'s colours as the packs' CSS variables (``--authui-brand``,
    ``--authui-brand-text``), or nothing when it sets none. A stylesheet of its own, so
    the app's pages get the colours with ``authui_stylesheets()`` as the auth pages do."""
    variables = [
        f"  {name}: {value};\n"
        for name, value in (
            ("--authui-brand", theme.brand_color),
            ("--authui-brand-text", theme.button_text),
        )
        if value
    ]
    return ":root {\n" + "".join(variables) + "}\n" if variables else ""


class PageRenderer:
    """Renders pages and fragments for one theme, built once per configuration.

    Args:
        theme: The configured theme (pack, colours, logo, app template folders).
        base_path: The base path of the auth routes; static files live under it.

    Raises:
        UnknownThemePack: The theme names a pack that is not installed.
    """

    def __init__(self, theme: Theme, base_path: str):
        self.theme = theme
        self.chain: list[ThemePack] = pack_chain(theme.pack)
        variables = theme_stylesheet(theme)
        generated = {THEME_STYLESHEET: variables.encode()} if variables else {}
        self.assets = Assets(base_path + STATIC_PREFIX, self.chain, generated)
        self.stylesheets = [
            self.assets.url(name) for p in reversed(self.chain) for name in p.stylesheets
        ]
        if variables:
            self.stylesheets.append(self.assets.url(THEME_STYLESHEET))
        packs = ChoiceLoader([FileSystemLoader(p.directory) for p in self.chain])
        prefixes: dict[str, Any] = {"authui": packs}
        prefixes.update({f"authui-{p.name}": FileSystemLoader(p.directory) for p in self.chain})
        app = theme.environment
        loaders: list[BaseLoader] = [] if app is None or app.loader is None else [app.loader]
        self.pack_loader = PrefixLoader(prefixes)
        self.pack_names = tuple(p.name for p in self.chain)
        loaders += [FileSystemLoader(list(theme.template_dirs)), self.pack_loader]
        self.environment = Environment(
            loader=ChoiceLoader(loaders),
            autoescape=select_autoescape(default=True, default_for_string=True),
            trim_blocks=True,
            lstrip_blocks=True,
        )
        if app is not None:  # the app's filters, tests and globals, as they are then
            env = self.environment
            env.filters = ChainMap(app.filters, env.filters)  # type: ignore[assignment]
            env.tests = ChainMap(app.tests, env.tests)  # type: ignore[assignment]
            env.globals = ChainMap({}, app.globals)  # type: ignore[assignment]
        self.environment.globals.update(
            _=translate,
            gettext=translate,
            ngettext=translate_plural,
            language_menu=language_menu,
            theme=theme,
            base_path=base_path,
            static=self.assets.url,
            htmx_url=self.assets.url(self.assets.htmx),
            stylesheets=self.stylesheets,
            html_attributes=self.html_attributes,
        )

    def html_attributes(self, language: Language | None = None) -> Markup:
        """The ``<html>`` attributes the packs style a document by: the language (the
        request's, unless given) and its direction, the class and the theme's colour
        scheme (``lang="ar" dir="rtl" class="authui" data-color-scheme="auto"``)."""
        language = language or current()
        scheme = escape(self.theme.color_scheme)
        return Markup(  # noqa: S704 (each value escaped)
            f'lang="{escape(language.tag)}" dir="{language.direction}" class="authui" '
            f'data-color-scheme="{scheme}"'
        )

    def page(
        self, template: str, title: str, status: int = 200, **context: Any
    ) -> InternalResponse:
        """A full page: ``authui/<template>``, with the security headers and a fresh nonce."""
        nonce = secrets.token_urlsafe(16)
        html = self.environment.get_template(f"authui/{template}").render(
            title=translate(title), csp_nonce=nonce, **context
        )
        return InternalResponse(status=status, headers=[HTML, *security_headers(nonce)], body=html)

    def fragment(self, template: str, **context: Any) -> InternalResponse:
        """A piece of a page for htmx to swap in (``authui/<template>``), no layout."""
        html = self.environment.get_template(f"authui/{template}").render(**context)
        return InternalResponse(headers=[HTML, ("Cache-Control", "no-store")], body=html)

    def snippet(self, template: str, **context: Any) -> Markup:
        """Markup of ``authui/<template>`` for embedding in the app's own pages."""
        html = self.environment.get_template(f"authui/{template}").render(**context)
        return Markup(html)  # noqa: S704 (the environment autoescapes every value)

    def error_page(
        self, error: str, *, sign_in_url: str | None, site_url: str | None = None
    ) -> InternalResponse:
        """The error page for an ``error`` value; the status follows the error."""
        status, heading, text, offer_sign_in = ERROR_PAGES.get(error, UNKNOWN_ERROR_PAGE)
        return self.page(
            "error.html",
            N_("Error"),
            status,
            heading=heading,
            text=text,
            sign_in_url=sign_in_url if offer_sign_in else None,
            site_url=site_url,
        )
