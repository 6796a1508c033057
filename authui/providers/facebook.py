"""Facebook: OAuth 2 sign-in with a Facebook account (Facebook Login).

Register ``<origin>/auth/callback/facebook`` under "Valid OAuth Redirect URIs" of the
Facebook Login product of your app (Meta for Developers → your app → Facebook Login →
Settings); ``AUTH_FACEBOOK_ID`` and ``AUTH_FACEBOOK_SECRET`` hold the app id and secret.

Quirks: the profile is ``GET https://graph.facebook.com/me`` with the ``fields`` named in
the userinfo URL (``id,name,email,picture``). The request carries an ``appsecret_proof``
(HMAC-SHA256 of the access token keyed with the app secret), so it also works for apps
that turn on "Require App Secret". Facebook does not say whether the email is verified,
and leaves it out when the account has none.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from authui.providers.base import ProviderStyle
from authui.providers.oauth import (
    Endpoint,
    OAuthProvider,
    Profile,
    TokenSet,
    UserinfoCall,
    with_overrides,
)

GRAPH_URL = "https://graph.facebook.com"
USERINFO_URL = f"{GRAPH_URL}/me?fields=id,name,email,picture"


def Facebook(**options: Any) -> OAuthProvider:
    """Sign in with Facebook. Keyword arguments override any ``OAuthProvider`` setting;
    ask for other profile fields with ``userinfo={"url": "https://graph.facebook.com/me?
    fields=id,name,email,picture.width(400)"}`` (a mapping keeps the signed request)."""
    defaults: dict[str, Any] = {
        "id": "facebook",
        "name": "Facebook",
        "type": "oauth",
        "authorization": Endpoint(
            url="https://www.facebook.com/v19.0/dialog/oauth", params={"scope": "email"}
        ),
        "token": Endpoint(url=f"{GRAPH_URL}/oauth/access_token"),
        "userinfo": Endpoint(url=USERINFO_URL, request=_userinfo),
        "profile": _profile,
        "style": ProviderStyle(brand_color="#006aff", text="#fff"),
    }
    return with_overrides(defaults, options)


async def _userinfo(call: UserinfoCall) -> Profile:
    """The userinfo URL with an ``appsecret_proof`` when the app's secret is known."""
    parts = urlsplit(call.provider.userinfo.url or USERINFO_URL)
    query = dict(parse_qsl(parts.query))
    secret = call.provider.client_secret
    if secret:
        token = str(call.tokens["access_token"])
        query["appsecret_proof"] = hmac.new(
            secret.encode(), token.encode(), hashlib.sha256
        ).hexdigest()
    profile: Profile = dict(await call.get_json(urlunsplit(parts._replace(query=urlencode(query)))))
    return profile


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    picture = profile.get("picture")
    data = picture.get("data") if isinstance(picture, dict) else None
    return {
        "id": str(profile["id"]),
        "name": profile.get("name"),
        "email": profile.get("email"),
        "image": data.get("url") if isinstance(data, dict) else None,
    }
