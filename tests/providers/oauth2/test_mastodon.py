"""Mastodon: a sign-in against a stand-in of a Mastodon server with recorded answers, and
the endpoints following the server URL (the issuer) however it is given."""

from __future__ import annotations

import dataclasses
from typing import Any

import httpx
import pytest

from authui import AuthConfig, set_env_defaults
from authui.checks import oauth_provider_errors
from authui.providers.mastodon import Mastodon
from authui.providers.oauth import OAuthProvider
from authui.providers.server import ServerProvider
from tests.conftest import ENV
from tests.oauth.standin import CLIENT_ID, CLIENT_SECRET, canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

SERVER = "https://social.example"
MASTODON = Service(
    id="mastodon",
    authorization=f"{SERVER}/oauth/authorize",
    token=f"{SERVER}/oauth/token",
    userinfo=f"GET {SERVER}/api/v1/accounts/verify_credentials",
    params={"scope": "read"},
    checks=("pkce", "state"),
)
TOKEN = canned("mastodon/token.json")
ACCOUNT = canned("mastodon/account.json")


async def test_sign_in() -> None:
    standin = MASTODON.standin(TOKEN, ACCOUNT)
    outcome = await sign_in_through(Mastodon(issuer=SERVER), standin)

    check_authorization(outcome, MASTODON)
    check_token_request(outcome, standin, MASTODON)
    check_signed_in(
        outcome,
        MASTODON,
        TOKEN,
        account_id="110528637375951012",
        name="tobias",
        email=None,
        image=ACCOUNT["avatar_static"],
    )
    assert "refresh_token" not in outcome.account
    assert standin.unexpected == []


def from_env(issuer: str, provider: OAuthProvider | None = None) -> OAuthProvider:
    env = {**ENV, "AUTH_MASTODON_ID": CLIENT_ID, "AUTH_MASTODON_ISSUER": issuer}
    config = set_env_defaults(env, AuthConfig(providers=[provider or Mastodon()]))
    [made] = config.providers
    assert isinstance(made, OAuthProvider)
    return made


async def test_the_server_url_from_the_environment_builds_the_endpoints() -> None:
    provider = from_env(f"{SERVER}/")
    standin = MASTODON.standin(TOKEN, ACCOUNT)
    outcome = await sign_in_through(provider, standin)

    assert isinstance(provider, ServerProvider)
    assert provider.client_id == CLIENT_ID
    assert provider.options == {"server_url": SERVER}
    check_authorization(outcome, MASTODON)
    assert outcome.account["providerAccountId"] == "110528637375951012"
    assert standin.unexpected == []


def test_an_explicit_issuer_wins_over_the_environment() -> None:
    provider = from_env("https://other.example", Mastodon(issuer=SERVER))

    assert provider.authorization.url == MASTODON.authorization


def test_without_a_server_url_the_configuration_check_says_what_to_set() -> None:
    provider = Mastodon(client_id=CLIENT_ID, client_secret=CLIENT_SECRET)

    [error] = oauth_provider_errors(provider)
    assert "AUTH_MASTODON_ISSUER" in str(error)
    assert provider.authorization.url is None
    assert oauth_provider_errors(dataclasses.replace(provider, issuer=SERVER)) == []


def test_a_new_server_url_moves_the_built_endpoints_and_keeps_given_ones() -> None:
    proxy = "https://proxy.example/mastodon/token"
    provider = Mastodon(issuer=SERVER, token=proxy)
    moved = dataclasses.replace(provider, issuer="https://other.example")

    assert provider.token.url == proxy
    assert moved.authorization.url == "https://other.example/oauth/authorize"
    assert moved.userinfo.url == "https://other.example/api/v1/accounts/verify_credentials"
    assert moved.token.url == proxy
    assert moved.authorization.params == {"scope": "read"}


@pytest.mark.parametrize(
    ("changes", "name", "image"),
    [
        pytest.param({"avatar_static": None}, "tobias", ACCOUNT["avatar"], id="only avatar"),
        pytest.param({"avatar_static": None, "avatar": None}, "tobias", None, id="no avatar"),
        pytest.param({"username": ""}, None, ACCOUNT["avatar_static"], id="no username"),
    ],
)
async def test_profile_edges(changes: dict[str, Any], name: str | None, image: str | None) -> None:
    account = {k: v for k, v in {**ACCOUNT, **changes}.items() if v is not None}
    outcome = await sign_in_through(Mastodon(issuer=SERVER), MASTODON.standin(TOKEN, account))

    assert outcome.user.get("name") == name
    assert outcome.user.get("image") == image
    assert outcome.user.get("email") is None


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("mastodon/token_error.json"))
    standin = MASTODON.standin(refused, ACCOUNT)
    await check_sign_in_refused(
        Mastodon(issuer=SERVER), standin, caplog, "answered 400: invalid_grant"
    )
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    provider = Mastodon(issuer=SERVER, authorization={"params": {"scope": "profile"}})

    check_param_override(provider, MASTODON, scope="profile")
    assert provider.checks == ("pkce", "state")
