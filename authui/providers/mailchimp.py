"""Mailchimp: OAuth 2 sign-in with a Mailchimp login.

In Mailchimp, open Account & billing → Extras → Registered apps → Register an app, and
set its Redirect URI to ``<origin>/auth/callback/mailchimp``; ``AUTH_MAILCHIMP_ID`` and
``AUTH_MAILCHIMP_SECRET`` hold its client id and secret.

Quirks:

- Mailchimp has no scopes (a token reaches the whole account): the authorization sends
  none. It takes the client secret in the token request's form (``client_secret_post``)
  and documents neither PKCE nor ``state``; the round trip is protected by ``state``,
  which Mailchimp sends back.
- The token answer is ``access_token``, ``expires_in: 0`` and ``scope: null``, without
  ``token_type`` (taken as bearer). Tokens do not expire, so the ``0`` is dropped rather
  than read as "expired now", and so is the empty scope.
- The profile is the login's metadata, ``GET https://login.mailchimp.com/oauth2/metadata``
  with the token as ``Authorization: OAuth <token>``, as Mailchimp documents it. That
  endpoint answers an invalid token with status 200 and an ``error`` field, which ends
  the sign-in. The metadata also names the account's data centre (``dc``) and
  ``api_endpoint`` for Marketing API calls.
- The account id is the login's ``login_id``; the name is the Mailchimp account's name
  (``accountname``), as in Auth.js; the email is the login's; the image is the login's
  ``avatar`` when it is a URL. Mailchimp does not say whether the email is verified.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import (
    Endpoint,
    OAuthProvider,
    Profile,
    TokenSet,
    UserinfoCall,
    with_overrides,
)

LOGIN_URL = "https://login.mailchimp.com/oauth2"


class MailchimpError(Exception):
    """Mailchimp's metadata endpoint answered with an ``error`` instead of the login."""


def conform_token(body: dict[str, Any]) -> dict[str, Any]:
    """Mailchimp's token answer without its ``expires_in: 0`` (the token never expires)
    and its ``scope: null``."""
    conformed = {k: v for k, v in body.items() if not (k == "scope" and v is None)}
    if conformed.get("expires_in") in (0, "0"):
        del conformed["expires_in"]
    return conformed


def Mailchimp(**options: Any) -> OAuthProvider:
    """Sign in with Mailchimp. Keyword arguments override any ``OAuthProvider``
    setting."""
    defaults: dict[str, Any] = {
        "id": "mailchimp",
        "name": "Mailchimp",
        "type": "oauth",
        "authorization": Endpoint(url=f"{LOGIN_URL}/authorize"),
        "token": Endpoint(url=f"{LOGIN_URL}/token", conform=conform_token),
        "userinfo": Endpoint(url=f"{LOGIN_URL}/metadata", request=_metadata),
        "checks": ("state",),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "style": ProviderStyle(brand_color="#000", text="#fff"),
    }
    return with_overrides(defaults, options)


async def _metadata(call: UserinfoCall) -> Profile:
    """The login's metadata, asked for with Mailchimp's ``OAuth`` authorization scheme."""
    url = call.provider.userinfo.url or f"{LOGIN_URL}/metadata"
    answer = await call.get_json(url, Authorization=f"OAuth {call.tokens['access_token']}")
    if not isinstance(answer, dict) or "error" in answer or "login" not in answer:
        detail = answer.get("error_description") if isinstance(answer, dict) else None
        error = answer.get("error") if isinstance(answer, dict) else "not a JSON object"
        raise MailchimpError(f"Mailchimp's metadata answered {error!r}: {detail or ''}")
    profile: Profile = dict(answer)
    return profile


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    login = profile.get("login")
    if not isinstance(login, dict):
        login = {}
    avatar = login.get("avatar")
    return {
        "id": str(login["login_id"]),
        "name": profile.get("accountname") or login.get("login_name") or None,
        "email": login.get("email") or login.get("login_email") or None,
        "image": avatar if isinstance(avatar, str) and avatar.startswith("https://") else None,
    }
