"""TikTok: a sign-in against a stand-in of open.tiktokapis.com with recorded answers.

TikTok names the client ``client_key``, so the token request is checked here rather than
with ``check_token_request`` (which expects ``client_id``)."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import httpx
import pytest

from authui import AuthConfig, set_env_defaults
from authui.providers.oauth import OAuthProvider
from authui.providers.tiktok import ClientKeyFetch, TikTok
from tests.oauth.standin import (
    APP,
    CLIENT_ID,
    CLIENT_SECRET,
    Outcome,
    StandIn,
    canned,
    form_of,
    sign_in_through,
)
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
)

TIKTOK = Service(
    id="tiktok",
    authorization="https://www.tiktok.com/v2/auth/authorize",
    token="https://open.tiktokapis.com/v2/oauth/token/",
    userinfo="GET https://open.tiktokapis.com/v2/user/info/",
    params={"scope": "user.info.basic"},
)
TOKEN = canned("tiktok/token.json")
USER = canned("tiktok/user.json")
OPEN_ID = "-000Qf7v2kLm9pRsT3uVwXyZ1aBcDeFgH4iJ"


def check_client_key_token_request(outcome: Outcome, standin: StandIn) -> None:
    """The code was exchanged with ``client_key`` and ``client_secret`` in the form, no
    ``client_id``, no Basic header, and the PKCE verifier of the challenge sent."""
    request = standin.sent("POST", TIKTOK.token)
    form = form_of(request)
    verifier = form.pop("code_verifier")
    assert form == {
        "grant_type": "authorization_code",
        "code": "authorization-code-1",
        "redirect_uri": f"{APP}/auth/callback/tiktok",
        "client_key": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
    }
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    assert challenge.rstrip(b"=").decode() == outcome.params["code_challenge"]
    assert "authorization" not in request.headers
    assert request.headers["content-type"].startswith("application/x-www-form-urlencoded")


def _user(**changes: Any) -> dict[str, Any]:
    """The recorded user info with the user's fields changed (``None``: left out)."""
    user = {k: v for k, v in {**USER["data"]["user"], **changes}.items() if v is not None}
    return {**USER, "data": {"user": user}}


async def test_sign_in() -> None:
    standin = TIKTOK.standin(TOKEN, USER)
    outcome = await sign_in_through(TikTok(), standin)

    check_authorization(outcome, TIKTOK, client_key=CLIENT_ID)
    check_client_key_token_request(outcome, standin)
    check_signed_in(
        outcome,
        TIKTOK,
        TOKEN,
        account_id=OPEN_ID,
        name="Noor Haddad",
        email=None,
        image=USER["data"]["user"]["avatar_url"],
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    info = standin.sent("GET", "https://open.tiktokapis.com/v2/user/info/")
    assert info.url.params["fields"] == "open_id,avatar_url,display_name"
    assert info.headers["authorization"] == f"Bearer {TOKEN['access_token']}"


def test_client_key_follows_a_client_id_from_the_environment() -> None:
    env = {"AUTH_TIKTOK_ID": "awx7k3p9qz2m", "AUTH_TIKTOK_SECRET": "s"}
    [provider] = set_env_defaults(env, AuthConfig(providers=[TikTok()])).providers

    assert isinstance(provider, OAuthProvider)
    assert provider.authorization.params["client_key"] == "awx7k3p9qz2m"
    assert isinstance(provider.custom_fetch, ClientKeyFetch)
    assert provider.custom_fetch.client_key == "awx7k3p9qz2m"


async def test_a_custom_fetch_given_to_the_factory_sends_the_rewritten_request() -> None:
    standin = TIKTOK.standin(TOKEN, USER)
    provider = TikTok(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, custom_fetch=standin)
    assert isinstance(provider.custom_fetch, ClientKeyFetch)

    token = await provider.custom_fetch(
        httpx.Request("POST", TIKTOK.token, data={"code": "c", "client_id": CLIENT_ID})
    )
    other = await provider.custom_fetch(httpx.Request("POST", "https://open.tiktokapis.com/x"))

    assert token.json() == TOKEN
    assert form_of(standin.requests[0]) == {"code": "c", "client_key": CLIENT_ID}
    assert other.status_code == 404
    assert standin.unexpected == ["POST https://open.tiktokapis.com/x"]


@pytest.mark.parametrize(
    ("user", "name", "image"),
    [
        pytest.param(_user(display_name=""), None, USER["data"]["user"]["avatar_url"],
                     id="no display name"),
        pytest.param(_user(avatar_url=None), "Noor Haddad", None, id="no avatar"),
    ],
)  # fmt: skip
async def test_profile_edges(user: dict[str, Any], name: str | None, image: str | None) -> None:
    outcome = await sign_in_through(TikTok(), TIKTOK.standin(TOKEN, user))

    assert outcome.user.get("name") == name
    assert outcome.user.get("image") == image
    assert outcome.account["providerAccountId"] == OPEN_ID


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    standin = TIKTOK.standin(canned("tiktok/token_error.json"), USER)  # an error with status 200
    await check_sign_in_refused(
        TikTok(), standin, caplog, "'invalid_grant': Authorization code is expired."
    )
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    scope = "user.info.basic,user.info.profile"
    provider = TikTok(client_id="key-1", authorization={"params": {"scope": scope}})

    check_param_override(provider, TIKTOK, scope=scope, client_key="key-1")
    assert provider.client_auth == "client_secret_post"
