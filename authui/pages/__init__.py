"""The built-in pages, rendered from a theme pack with Jinja.

Template lookup for ``authui/<name>.html``: the app's own template folders first (so an
app's ``templates/authui/signin.html`` wins), then the chosen pack, then its parents down
to ``base``. A pack's own file is also reachable as ``authui-<pack>/<name>.html``, for an
override that extends the original. One environment per configuration serves every
request.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, PrefixLoader, select_autoescape
from markupsafe import Markup

from authui.config import Theme
from authui.http import InternalResponse
from authui.i18n import translate
from authui.pages.assets import STATIC_PREFIX, Assets
from authui.pages.packs import ThemePack, pack_chain

HTML = ("Content-Type", "text/html")

_TRY_ANOTHER = "Try signing in with a different account."
SIGNIN_ERRORS: Mapping[str, str] = {
    "default": "Unable to sign in.",
    "Signin": _TRY_ANOTHER,
    "OAuthSignin": _TRY_ANOTHER,
    "OAuthCallbackError": _TRY_ANOTHER,
    "OAuthCreateAccount": _TRY_ANOTHER,
    "EmailCreateAccount": _TRY_ANOTHER,
    "Callback": _TRY_ANOTHER,
    "OAuthAccountNotLinked": "To confirm your identity, sign in with the same account you "
    "used originally.",
    "EmailSignin": "The e-mail could not be sent.",
    "EmailSignInError": "The e-mail could not be sent.",
    "EmailSignInError:invalid_email": "Enter a valid email address.",
    "EmailSignInError:rate_limited": "Too many sign-in links were asked for. Wait a while "
    "and try again.",
    "CredentialsSignin": "Sign in failed. Check the details you provided are correct.",
    "SessionRequired": "Please sign in to access this page.",
}


def signin_error_message(error: str, code: str | None = None) -> str:
    """The sign-in page's message for an ``error`` value and its ``code`` (unknown values:
    the error's message, else the default)."""
    found = SIGNIN_ERRORS.get(f"{error}:{code}") if code else None
    return found or SIGNIN_ERRORS.get(error, SIGNIN_ERRORS["default"])


ERROR_PAGES: Mapping[str, tuple[int, str, str, bool]] = {
    "Configuration": (
        500,
        "Server error",
        "There is a problem with the server configuration. "
        "Check the server logs for more information.",
        False,
    ),
    "AccessDenied": (403, "Access Denied", "You do not have permission to sign in.", True),
    "Verification": (
        403,
        "Unable to sign in",
        "The sign in link is no longer valid. It may have been used already or it may have "
        "expired.",
        True,
    ),
}
"""``error`` value → (status, heading, text, whether to offer a sign-in button)."""


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
        self.assets = Assets(base_path + STATIC_PREFIX, self.chain)
        self.stylesheets = [
            self.assets.url(name) for p in reversed(self.chain) for name in p.stylesheets
        ]
        packs = ChoiceLoader([FileSystemLoader(p.directory) for p in self.chain])
        prefixes: dict[str, Any] = {"authui": packs}
        prefixes.update({f"authui-{p.name}": FileSystemLoader(p.directory) for p in self.chain})
        self.environment = Environment(
            loader=ChoiceLoader(
                [FileSystemLoader(list(theme.template_dirs)), PrefixLoader(prefixes)]
            ),
            autoescape=select_autoescape(default=True, default_for_string=True),
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.environment.globals.update(
            _=translate,
            theme=theme,
            base_path=base_path,
            static=self.assets.url,
            htmx_url=self.assets.url(self.assets.htmx),
            stylesheets=self.stylesheets,
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
        status, heading, text, offer_sign_in = ERROR_PAGES.get(error, (200, "Error", "", False))
        return self.page(
            "error.html",
            "Error",
            status,
            heading=heading,
            text=text,
            sign_in_url=sign_in_url if offer_sign_in else None,
            site_url=site_url,
        )
