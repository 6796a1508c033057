"""WeChat: a sign-in against a stand-in of api.weixin.qq.com with recorded answers.

WeChat exchanges the code with a GET that carries ``appid`` and ``secret`` in its query,
so the token request is checked here rather than with ``check_token_request``."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from authui import AuthConfig, set_env_defaults
from authui.providers.oauth import OAuthProvider
from authui.providers.wechat import AppIdFetch, WeChat
from tests.oauth.standin import CLIENT_ID, CLIENT_SECRET, StandIn, canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
)

WECHAT = Service(
    id="wechat",
    authorization="https://open.weixin.qq.com/connect/oauth2/authorize",
    token="https://api.weixin.qq.com/sns/oauth2/access_token",
    userinfo="GET https://api.weixin.qq.com/sns/userinfo",
    params={"scope": "snsapi_userinfo"},
    checks=("state",),
)
TOKEN = canned("wechat/token.json")
USER = canned("wechat/user.json")
UNIONID = "o6_bmasdasdsad6_2sgVt7hMZOPfL"
OPENID = "oLVPpjqs9BhvzwPj5A-vTYAX3GLc"


def wechat(token: Any, user: Any) -> StandIn:
    """WeChat answering ``token`` to the GET of its token URL and ``user`` as the profile."""
    return StandIn({f"GET {WECHAT.token}": token, WECHAT.userinfo: user})


def check_token_get(standin: StandIn) -> None:
    """The code was exchanged with WeChat's GET: ``appid``, ``secret``, ``code`` and
    ``grant_type`` in the query, nothing in a header or body."""
    request = standin.sent("GET", WECHAT.token)
    assert dict(request.url.params) == {
        "appid": CLIENT_ID,
        "secret": CLIENT_SECRET,
        "code": "authorization-code-1",
        "grant_type": "authorization_code",
    }
    assert request.content == b""
    assert "authorization" not in request.headers
    assert not any(r.method == "POST" for r in standin.requests)


async def test_sign_in() -> None:
    standin = wechat(TOKEN, USER)
    outcome = await sign_in_through(WeChat(), standin)

    check_authorization(outcome, WECHAT, appid=CLIENT_ID)
    assert outcome.authorization_url.endswith("#wechat_redirect")
    check_token_get(standin)
    check_signed_in(
        outcome,
        WECHAT,
        TOKEN,
        account_id=UNIONID,
        name="林小雨",
        email=None,
        image=USER["headimgurl"],
    )
    assert outcome.account["openid"] == OPENID
    userinfo = standin.sent("GET", "https://api.weixin.qq.com/sns/userinfo")
    assert dict(userinfo.url.params) == {
        "access_token": TOKEN["access_token"],
        "openid": OPENID,
        "lang": "zh_CN",
    }
    assert "authorization" not in userinfo.headers


async def test_website_app_signs_in_with_a_qr_code() -> None:
    qr = dataclasses.replace(
        WECHAT,
        authorization="https://open.weixin.qq.com/connect/qrconnect",
        params={"scope": "snsapi_login"},
    )
    provider = WeChat(platform_type="WebsiteApp")
    standin = wechat({**TOKEN, "scope": "snsapi_login"}, USER)
    outcome = await sign_in_through(provider, standin)

    check_authorization(outcome, qr, appid=CLIENT_ID)
    check_token_get(standin)
    assert outcome.account["providerAccountId"] == UNIONID
    assert provider.options == {"platform_type": "WebsiteApp"}
    assert WeChat(options={"platform_type": "WebsiteApp"}).authorization == provider.authorization
    with pytest.raises(ValueError, match="platform_type"):
        WeChat(platform_type="MiniProgram")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "account_id", "name", "image"),
    [
        pytest.param({"unionid": None}, OPENID, "林小雨", USER["headimgurl"],
                     id="app outside an Open Platform account: the openid"),
        pytest.param({"headimgurl": "", "nickname": ""}, UNIONID, None, None,
                     id="no picture, no nickname"),
    ],
)  # fmt: skip
async def test_profile_edges(
    changes: dict[str, Any], account_id: str, name: str | None, image: str | None
) -> None:
    user = {k: v for k, v in {**USER, **changes}.items() if v is not None}
    # The token answer names the same unionid as the profile, or none.
    token = {k: v for k, v in TOKEN.items() if k != "unionid" or "unionid" in user}
    outcome = await sign_in_through(WeChat(), wechat(token, user))

    assert outcome.account["providerAccountId"] == account_id
    assert outcome.user.get("name") == name
    assert outcome.user.get("image") == image
    assert outcome.user.get("email") is None


def test_appid_follows_a_client_id_from_the_environment() -> None:
    env = {"AUTH_WECHAT_ID": "wx520c15f417810387", "AUTH_WECHAT_SECRET": "app-secret"}
    [provider] = set_env_defaults(env, AuthConfig(providers=[WeChat()])).providers

    assert isinstance(provider, OAuthProvider)
    assert provider.authorization.params["appid"] == "wx520c15f417810387"
    assert isinstance(provider.custom_fetch, AppIdFetch)
    assert (provider.custom_fetch.appid, provider.custom_fetch.secret) == (
        "wx520c15f417810387",
        "app-secret",
    )


@pytest.mark.parametrize(
    ("token", "user", "logged"),
    [
        pytest.param(canned("wechat/token_error.json"), USER, "'40029': invalid code",
                     id="refused code"),
        pytest.param(TOKEN, canned("wechat/userinfo_error.json"), "errcode 40003: invalid openid",
                     id="refused profile"),
    ],
)  # fmt: skip
async def test_errors_with_status_200_end_on_the_error_page(
    token: dict[str, Any], user: dict[str, Any], logged: str, caplog: pytest.LogCaptureFixture
) -> None:
    await check_sign_in_refused(WeChat(), wechat(token, user), caplog, logged)


def test_override_merges_params() -> None:
    provider = WeChat(client_id="wx1", authorization={"params": {"forcePopup": "true"}})

    fragment = dataclasses.replace(WECHAT, authorization=f"{WECHAT.authorization}#wechat_redirect")
    check_param_override(provider, fragment, appid="wx1", forcePopup="true")
    assert provider.checks == ("state",)
