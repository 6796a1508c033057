"""NetSuite: OAuth 2 sign-in with a NetSuite user, through your account's own domains.

In NetSuite, turn on the OAuth 2.0 feature (Setup → Company → Enable Features →
SuiteCloud), then create an integration record with the *Authorization Code Grant*, the
scopes you need and ``<origin>/auth/callback/netsuite`` as its Redirect URI (NetSuite
accepts only ``https``). ``AUTH_NETSUITE_ID`` and ``AUTH_NETSUITE_SECRET`` hold the
client id and secret shown once when the record is saved.

NetSuite has no profile endpoint, so the provider needs two settings of yours:

- ``account_id``: the NetSuite account id (``1234567``, ``TSTDRV1234567``,
  ``1234567_SB1``); the endpoints are on its own domains,
  ``<account>.app.netsuite.com`` and ``<account>.suitetalk.api.netsuite.com``.
- ``userinfo``: the external URL of a RESTlet you deploy that answers ``GET`` with the
  current user as JSON: ``id``, ``name``, ``email`` (e.g. from ``N/runtime``'s
  ``getCurrentUser()``).

Quirks:

- Auth.js's NetSuite provider fails its own configuration check as shipped: it has no
  userinfo endpoint. Here the RESTlet is a setting; without it (or the account id) the
  configuration check names what is missing.
- NetSuite authenticates the client with HTTP Basic at the token endpoint, requires a
  ``state`` of 24 to 1024 characters and supports PKCE: the provider sends both
  (Auth.js sends ``state`` only). Access tokens are JWTs valid for an hour; the refresh
  token lasts a week by default.
- The RESTlet is called with ``Content-Type: application/json`` (NetSuite picks the
  answer's format from it) and the access token as bearer. The user has no image, and
  NetSuite does not say whether the email is verified.
"""

from __future__ import annotations

import dataclasses
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


def account_host(account_id: str) -> str:
    """The account id as NetSuite writes it in host names: lower case, ``_`` as ``-``
    (``1234567_SB1`` → ``1234567-sb1``)."""
    return account_id.strip().lower().replace("_", "-")


def NetSuite(*, account_id: str | None = None, **options: Any) -> OAuthProvider:
    """Sign in with NetSuite.

    Args:
        account_id: The NetSuite account id, e.g. ``"1234567"`` or ``"1234567_SB1"`` for
            a sandbox. Also accepted as ``options={"account_id": …}``.
        **options: Override any ``OAuthProvider`` setting. ``userinfo`` (the RESTlet's
            external URL) is required, e.g.
            ``userinfo="https://1234567.restlets.api.netsuite.com/app/site/hosting/restlet.nl?script=1&deploy=1"``.
    """
    given = dict(options.get("options") or {})
    account = account_id or given.get("account_id")
    host = account_host(account) if account else None
    defaults: dict[str, Any] = {
        "id": "netsuite",
        "name": "NetSuite",
        "type": "oauth",
        "authorization": Endpoint(
            url=f"https://{host}.app.netsuite.com/app/login/oauth2/authorize.nl" if host else None,
            params={"scope": "restlets rest_webservices"},
        ),
        "token": Endpoint(
            url=(
                f"https://{host}.suitetalk.api.netsuite.com/services/rest/auth/oauth2/v1/token"
                if host
                else None
            )
        ),
        "userinfo": Endpoint(request=_restlet),
        "checks": ("pkce", "state"),
        "profile": _profile,
        "style": ProviderStyle(brand_color="#181a1b", text="#fbfbfb"),
        "options": {"account_id": account} if account else {},
    }
    if isinstance(options.get("userinfo"), str):  # keep the RESTlet request with the URL
        options = {**options, "userinfo": {"url": options["userinfo"]}}
    provider = with_overrides(defaults, options)
    if provider.userinfo.url is None and provider.userinfo.request is _restlet:
        # No RESTlet: leave userinfo empty, so the configuration check reports it.
        provider = dataclasses.replace(provider, userinfo=Endpoint())
    return provider


async def _restlet(call: UserinfoCall) -> Profile:
    """The current user from the RESTlet at the userinfo URL."""
    url = call.provider.userinfo.url or ""
    answer = await call.send_json("GET", url, headers={"Content-Type": "application/json"})
    if not isinstance(answer, dict):
        raise ValueError("NetSuite's userinfo RESTlet must answer with a JSON object")
    return answer


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile["id"]),
        "name": profile.get("name") or None,
        "email": profile.get("email") or None,
        "image": None,
    }
