"""WeChat: OAuth 2 sign-in with a WeChat (Weixin) account.

Two kinds of WeChat app sign users in, chosen with ``platform_type``:

- ``"OfficialAccount"`` (the default): web pages opened inside WeChat, through an
  Official Account (mp.weixin.qq.com → Settings → Official Account settings → Function
  settings → "Web authorization domain", where your site's domain goes).
- ``"WebsiteApp"``: web sites opened in any browser, which show a QR code to scan with
  WeChat, through a Website App of the WeChat Open Platform (open.weixin.qq.com), whose
  "authorization callback domain" is your site's domain.

WeChat registers a domain, not a URL: ``<origin>/auth/callback/wechat`` must be on it.
``AUTH_WECHAT_ID`` holds the app's AppID and ``AUTH_WECHAT_SECRET`` its AppSecret.

Quirks:

- WeChat calls the client id ``appid``: the authorization request carries ``appid``
  (kept in step with ``client_id``, also when it comes from ``AUTH_WECHAT_ID`` after the
  factory ran) and ends with WeChat's ``#wechat_redirect``.
- The code is exchanged with a GET, ``/sns/oauth2/access_token?appid=…&secret=…&code=…
  &grant_type=authorization_code``: the provider's ``custom_fetch`` rewrites authui's
  token request into it, and wraps any ``custom_fetch`` you give it. The answer has no
  ``token_type`` and names the user (``openid``, and ``unionid`` when the app belongs to
  an Open Platform account). Errors come with status 200 as ``{"errcode", "errmsg"}``.
- The profile is ``GET /sns/userinfo?access_token=…&openid=…&lang=zh_CN`` (no bearer
  header). The account id is ``unionid``, the same across the apps of one Open Platform
  account, else the app's own ``openid``. The name is ``nickname``, the image
  ``headimgurl``. WeChat never shares an email address.
- WeChat supports ``state``, not PKCE.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx

from authui.http_client import shared_client
from authui.providers.base import ProviderStyle
from authui.providers.oauth import (
    CustomFetch,
    Endpoint,
    OAuthProvider,
    Profile,
    TokenSet,
    UserinfoCall,
    with_overrides,
)

PlatformType = Literal["OfficialAccount", "WebsiteApp"]

API_URL = "https://api.weixin.qq.com"
AUTHORIZATION = {
    "OfficialAccount": ("https://open.weixin.qq.com/connect/oauth2/authorize", "snsapi_userinfo"),
    "WebsiteApp": ("https://open.weixin.qq.com/connect/qrconnect", "snsapi_login"),
}
"""Each platform type's authorization URL (before ``#wechat_redirect``) and scope."""
JSON = {"Accept": "application/json"}


class WeChatError(Exception):
    """WeChat answered a profile request with an ``errcode``."""


@dataclass(frozen=True)
class AppIdFetch:
    """Sends a WeChat provider's requests: the token request as WeChat's GET with
    ``appid`` and ``secret`` in the query, every request through ``send`` (else authui's
    HTTP client).

    Attributes:
        token_url: The token endpoint, whose POST is rewritten.
        appid: The AppID (the provider's ``client_id``).
        secret: The AppSecret (the provider's ``client_secret``).
        send: The ``custom_fetch`` the provider was given, if any.
    """

    token_url: str | None
    appid: str | None
    secret: str | None = dataclasses.field(default=None, repr=False)
    send: CustomFetch | None = None

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and str(request.url.copy_with(query=None)) == self.token_url:
            form = dict(parse_qsl(request.content.decode()))
            query = {
                "appid": self.appid or "",
                "secret": self.secret or "",
                "code": form.get("code", ""),
                "grant_type": "authorization_code",
            }
            url = request.url.copy_with(query=None)
            request = httpx.Request("GET", url, params=query, headers=JSON)
        if self.send is not None:
            return await self.send(request)
        return await shared_client().send(request)


@dataclass(frozen=True, slots=True, kw_only=True)
class WeChatProvider(OAuthProvider):
    """An ``OAuthProvider`` that keeps WeChat's ``appid`` in step with ``client_id`` (in
    the authorization parameters and in the token request), however it is copied."""

    def __post_init__(self) -> None:
        params = dict(self.authorization.params)
        if self.client_id:
            params["appid"] = self.client_id
        authorization = dataclasses.replace(self.authorization, params=params)
        object.__setattr__(self, "authorization", authorization)
        given = self.custom_fetch
        fetch = AppIdFetch(
            token_url=self.token.url,
            appid=self.client_id,
            secret=self.client_secret,
            send=given.send if isinstance(given, AppIdFetch) else given,
        )
        object.__setattr__(self, "custom_fetch", fetch)


def WeChat(*, platform_type: PlatformType | None = None, **options: Any) -> OAuthProvider:
    """Sign in with WeChat.

    Args:
        platform_type: ``"OfficialAccount"`` (pages inside WeChat, the default) or
            ``"WebsiteApp"`` (a QR code on any web site); also accepted as
            ``options={"platform_type": …}``.
        **options: Override any ``OAuthProvider`` setting.

    Raises:
        ValueError: ``platform_type`` is neither of the two.
    """
    given = dict(options.get("options") or {})
    platform = platform_type or given.get("platform_type") or "OfficialAccount"
    if platform not in AUTHORIZATION:
        raise ValueError(f"platform_type must be one of {sorted(AUTHORIZATION)}, not {platform!r}")
    url, scope = AUTHORIZATION[platform]
    defaults: dict[str, Any] = {
        "id": "wechat",
        "name": "WeChat",
        "type": "oauth",
        "authorization": Endpoint(url=f"{url}#wechat_redirect", params={"scope": scope}),
        "token": Endpoint(url=f"{API_URL}/sns/oauth2/access_token", conform=conform_token),
        "userinfo": Endpoint(url=f"{API_URL}/sns/userinfo", request=_userinfo),
        "checks": ("state",),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "style": ProviderStyle(brand_color="#fff", text="#000"),
        "options": {"platform_type": platform},
    }
    return with_overrides(defaults, options, WeChatProvider)


def conform_token(body: dict[str, Any]) -> dict[str, Any]:
    """WeChat's ``{"errcode", "errmsg"}`` refusal as an OAuth ``error``."""
    if "access_token" not in body and body.get("errcode") not in (None, 0):
        return {"error": str(body["errcode"]), "error_description": str(body.get("errmsg", ""))}
    return body


async def _userinfo(call: UserinfoCall) -> Profile:
    """``/sns/userinfo`` for the token answer's ``openid``, the token in the query.

    Raises:
        WeChatError: WeChat answered with an ``errcode``.
        httpx.HTTPStatusError: WeChat answered with an error status.
    """
    url = urlsplit(call.provider.userinfo.url or f"{API_URL}/sns/userinfo")
    query = {
        "lang": "zh_CN",
        **dict(parse_qsl(url.query)),
        "access_token": str(call.tokens["access_token"]),
        "openid": str(call.tokens.get("openid") or ""),
    }
    target = url._replace(query=urlencode(query)).geturl()
    answer = await call.fetch(httpx.Request("GET", target, headers=JSON))
    answer.raise_for_status()
    profile = answer.json()
    if not isinstance(profile, dict):
        raise WeChatError("WeChat's userinfo answered no JSON object")
    if profile.get("errcode") not in (None, 0):
        code, message = profile.get("errcode"), profile.get("errmsg")
        raise WeChatError(f"WeChat's userinfo answered errcode {code}: {message}")
    return profile


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile.get("unionid") or profile["openid"]),
        "name": profile.get("nickname") or None,
        "email": None,
        "image": profile.get("headimgurl") or None,
    }
