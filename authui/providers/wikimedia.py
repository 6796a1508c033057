"""Wikimedia: OAuth 2 sign-in with a Wikimedia account (the single login of Wikipedia,
Wikidata, Commons and the other Wikimedia wikis).

Propose an OAuth 2 consumer on Meta-Wiki (``Special:OAuthConsumerRegistration/propose/
oauth2``) with ``<origin>/auth/callback/wikimedia`` as its callback URL; ``AUTH_WIKIMEDIA_ID``
and ``AUTH_WIKIMEDIA_SECRET`` hold its client application key and secret. A consumer
works for its owner at once; other users can sign in once Wikimedia approves it.

Quirks:

- What the app may do is fixed by the grants of the consumer's registration, not by the
  authorization request: it sends no ``scope`` (Auth.js sends an empty one, which
  MediaWiki reads the same way).
- The profile is ``GET /w/rest.php/oauth2/resource/profile``. The account id is ``sub``
  (the central user id), the name is the ``username``. ``email`` (and ``realname``) come
  only for a consumer registered for "User identity verification only, with access to
  real name and email address"; otherwise the user has no email. There is no image.
- ``confirmed_email`` says whether the address is confirmed; email linking relies on it.
- Wikimedia asks API clients for a descriptive ``User-Agent``; set one in a
  ``custom_fetch`` if your requests get throttled.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

OAUTH_URL = "https://meta.wikimedia.org/w/rest.php/oauth2"


def Wikimedia(**options: Any) -> OAuthProvider:
    """Sign in with Wikimedia. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"uselang": "de"}}``."""
    defaults: dict[str, Any] = {
        "id": "wikimedia",
        "name": "Wikimedia",
        "type": "oauth",
        "authorization": Endpoint(url=f"{OAUTH_URL}/authorize"),
        "token": Endpoint(url=f"{OAUTH_URL}/access_token"),
        "userinfo": Endpoint(url=f"{OAUTH_URL}/resource/profile"),
        "profile": _profile,
        "email_verified": _email_verified,
        # The blue of the Wikimedia logo.
        "style": ProviderStyle(brand_color="#006699", text="#fff"),
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile["sub"]),
        "name": profile.get("username"),
        "email": profile.get("email") or None,
        "image": None,
    }


def _email_verified(profile: Profile) -> bool:
    return profile.get("confirmed_email") is True and bool(profile.get("email"))
