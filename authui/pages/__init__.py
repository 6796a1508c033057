"""The built-in pages: sign-in, sign-out, error and verify-request, rendered with Jinja.

One Jinja environment serves every request; templates live in ``authui/pages/templates``.
Messages are the Auth.js texts, keyed by the ``error`` query parameter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from authui.http import InternalResponse
from authui.options import Options

HTML = ("Content-Type", "text/html")

_environment = Environment(
    loader=PackageLoader("authui.pages", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)

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
    "CredentialsSignin": "Sign in failed. Check the details you provided are correct.",
    "SessionRequired": "Please sign in to access this page.",
}


def signin_error_message(error: str) -> str:
    """The sign-in page's message for an ``error`` value (unknown values: the default)."""
    return SIGNIN_ERRORS.get(error, SIGNIN_ERRORS["default"])


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


def render(
    options: Options, template: str, title: str, status: int = 200, **context: Any
) -> InternalResponse:
    """Render a page template into an HTML response."""
    html = _environment.get_template(template).render(
        title=title, theme=options.config.theme, **context
    )
    return InternalResponse(status=status, headers=[HTML], body=html)


def render_error_page(
    options: Options, error: str, *, sign_in_url: str | None, site_url: str | None = None
) -> InternalResponse:
    """The error page for an ``error`` value; the status follows the error."""
    status, heading, text, offer_sign_in = ERROR_PAGES.get(error, (200, "Error", "", False))
    return render(
        options,
        "error.html",
        "Error",
        status,
        heading=heading,
        text=text,
        sign_in_url=sign_in_url if offer_sign_in else None,
        site_url=site_url,
    )
