"""Zoho: OAuth 2 sign-in with a Zoho account.

Register a "Server-based Application" in the Zoho API Console (api-console.zoho.com) with
``<origin>/auth/callback/zoho`` as an authorized redirect URI; ``AUTH_ZOHO_ID`` and
``AUTH_ZOHO_SECRET`` hold its client id and secret.

Quirks:

- Zoho keeps each account in one data centre (US, EU, IN, AU, JP, CA, CN …), each with
  its own accounts server. The provider uses one: ``accounts.zoho.com`` by default, another
  with ``Zoho(accounts_server="https://accounts.zoho.eu")``. A code issued by one data
  centre is refused by the others' token endpoints (Auth.js has no setting for this).
- Zoho reads the client id and secret from the body of the token request
  (``client_secret_post``), not from HTTP Basic as Auth.js sends them.
- Zoho answers a refused code with status 200 and ``{"error": "invalid_code"}``; that
  ends the sign-in like any token error.
- The profile is ``GET /oauth/user/info`` (scope ``AaaServer.profile.Read``). The account
  id is ``ZUID`` (a number, kept as a string). The name is ``First_Name Last_Name``
  (whichever are set), else ``Display_Name``. Zoho sends no picture and does not say
  whether the email is verified.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

ACCOUNTS_URL = "https://accounts.zoho.com"


def Zoho(*, accounts_server: str | None = None, **options: Any) -> OAuthProvider:
    """Sign in with Zoho.

    Args:
        accounts_server: The accounts server of your users' data centre, e.g.
            ``"https://accounts.zoho.eu"``. Also accepted as
            ``options={"accounts_server": …}``. Unset: ``https://accounts.zoho.com``.
        **options: Override any ``OAuthProvider`` setting, e.g.
            ``authorization={"params": {"access_type": "offline"}}`` for a refresh token.
    """
    given = dict(options.get("options") or {})
    server = (accounts_server or given.get("accounts_server") or ACCOUNTS_URL).rstrip("/")
    defaults: dict[str, Any] = {
        "id": "zoho",
        "name": "Zoho",
        "type": "oauth",
        "authorization": Endpoint(
            url=f"{server}/oauth/v2/auth", params={"scope": "AaaServer.profile.Read"}
        ),
        "token": Endpoint(url=f"{server}/oauth/v2/token"),
        "userinfo": Endpoint(url=f"{server}/oauth/user/info"),
        "client_auth": "client_secret_post",
        "profile": _profile,
        # A deeper shade of the red in Zoho's logo (#E42527), so white text reads (5.1:1).
        "style": ProviderStyle(brand_color="#D42729", text="#fff"),
        "options": {"accounts_server": server} if server != ACCOUNTS_URL else {},
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    parts = (profile.get("First_Name"), profile.get("Last_Name"))
    full_name = " ".join(p.strip() for p in parts if isinstance(p, str) and p.strip())
    return {
        "id": str(profile["ZUID"]),
        "name": full_name or profile.get("Display_Name") or None,
        "email": profile.get("Email") or None,
        "image": None,
    }
