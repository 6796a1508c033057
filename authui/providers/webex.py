"""Webex: OAuth 2 sign-in with a Webex account, through a Webex integration.

Create an integration (developer.webex.com → My Webex Apps → Create a New App →
Integration), enter ``<origin>/auth/callback/webex`` as a Redirect URI and tick the
``spark:people_read`` scope (``spark:kms`` is ticked already). ``AUTH_WEBEX_ID`` and
``AUTH_WEBEX_SECRET`` hold its client ID and client secret.

Quirks:

- The profile is ``GET /v1/people/me`` of the Webex API. The account id is the person's
  ``id`` (a long base64 string), the email the first of ``emails``, the image
  ``avatar`` (absent when the user has none).
- The token request sends the client ID and secret in the form
  (``client_secret_post``), as Webex documents its token endpoint.
- ``api_base_url`` points the endpoints at another Webex API site, e.g. Webex for
  Government (``https://api-usgov.webex.com/v1``).
"""

from __future__ import annotations

from typing import Any

from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

API_BASE_URL = "https://webexapis.com/v1"


def Webex(*, api_base_url: str | None = None, **options: Any) -> OAuthProvider:
    """Sign in with Webex.

    Args:
        api_base_url: The Webex API base URL the endpoints are built on (``/authorize``,
            ``/access_token``, ``/people/me``); also accepted as
            ``options={"api_base_url": …}``. Unset: ``https://webexapis.com/v1``.
        **options: Override any ``OAuthProvider`` setting, e.g.
            ``authorization={"params": {"scope": "spark:kms spark:people_read
            spark:rooms_read"}}``.
    """
    given = dict(options.get("options") or {})
    base = (api_base_url or given.get("api_base_url") or API_BASE_URL).rstrip("/")
    defaults: dict[str, Any] = {
        "id": "webex",
        "name": "Webex",
        "type": "oauth",
        "authorization": Endpoint(
            url=f"{base}/authorize", params={"scope": "spark:kms spark:people_read"}
        ),
        "token": Endpoint(url=f"{base}/access_token"),
        "userinfo": Endpoint(url=f"{base}/people/me"),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "options": {"api_base_url": base},
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    emails = profile.get("emails")
    email = emails[0] if isinstance(emails, list) and emails else None
    return {
        "id": str(profile["id"]),
        "name": profile.get("displayName") or None,
        "email": email if isinstance(email, str) and email else None,
        "image": profile.get("avatar") or None,
    }
