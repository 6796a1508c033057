"""Refusing a request that needs a signed-in user, the same way in every integration.

Browsers (requests that accept HTML) are sent to the sign-in page with a ``callbackUrl``
back to where they were; every other caller (``fetch``, an API client, another service) gets
``401`` with a JSON reason and a ``WWW-Authenticate: Bearer`` challenge, since the session
may also come as a bearer token.

A view that needs two-step verification (``mfa=True``) refuses a session without it the
same way: browsers go to the account center's two-factor page, other callers get ``403``
with a JSON reason.
"""

from __future__ import annotations

from authui.config import AuthConfig
from authui.i18n import translate
from authui.urls import with_query

CHALLENGE = ("WWW-Authenticate", 'Bearer realm="authui"')
"""The challenge a 401 carries (RFC 9110 asks every 401 for one)."""


def unauthorized_message() -> str:
    """The reason a 401 gives, translated."""
    return translate("Sign in to access this resource.")


def sign_in_location(config: AuthConfig, base_path: str, target: str) -> str:
    """The sign-in page (the configured one, else ``<base>/signin``) with a
    ``callbackUrl`` back to ``target``."""
    page = config.pages.sign_in or f"{base_path}/signin"
    return with_query(page, {"callbackUrl": target})


def mfa_message() -> str:
    """The reason a 403 gives when a view needs two-step verification, translated."""
    return translate("This needs a sign-in with two-step verification.")


def mfa_location(base_path: str, target: str) -> str:
    """Where a browser goes when a view needs two-step verification and the session has
    none: the account center's two-factor page (to set it up, or sign in again with it),
    coming back to ``target``."""
    return with_query(f"{base_path}/account/two-factor", {"callbackUrl": target})
