"""LINE: LINE Login v2.1, OpenID Connect at ``https://access.line.me``.

Create a LINE Login channel in the LINE Developers console, enable *Web app*, and add
``<origin>/auth/callback/line`` as a Callback URL (LINE Login tab). ``AUTH_LINE_ID``
holds the channel ID, ``AUTH_LINE_SECRET`` the channel secret.

Quirks:

- LINE signs a web app's id_token with HS256, keyed by the channel secret, although its
  discovery document advertises ES256 keys (used for native apps); an id_token signed
  with the secret is verified with the secret, one signed with a published key against
  the key set.
- ``email`` is in the id_token only for channels LINE has granted the email permission
  (OpenID Connect → Email address permission in the console) and when the user agrees;
  there is no ``email_verified`` claim, so a LINE account is never linked to an existing
  user by email. Without ``email`` the profile is completed from the userinfo endpoint
  (``sub``, ``name``, ``picture``).
- The round trip is protected by ``state`` (LINE requires it).
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def LINE(**options: Any) -> OAuthProvider:
    """Sign in with LINE. Keyword arguments override any ``OAuthProvider`` setting, e.g.
    ``authorization={"params": {"scope": "openid profile"}}`` for a channel without the
    email permission."""
    defaults = {
        "id": "line",
        "name": "LINE",
        "type": "oidc",
        "issuer": "https://access.line.me",
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "checks": ("state",),
        "style": ProviderStyle(brand_color="#00C300", text="#fff"),
    }
    return with_overrides(defaults, options)
