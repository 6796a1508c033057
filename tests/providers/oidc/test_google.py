"""Google: discovery at accounts.google.com, PKCE, Basic client auth, the default profile."""

from __future__ import annotations

from authui.providers.google import Google
from authui.providers.registry import built_in
from tests.oauth.standin import sign_in_through
from tests.providers.oidc.common import (
    canned_standin,
    check_account,
    check_authorization,
    check_token_request,
    mapped,
)

ISSUER = "https://accounts.google.com"


async def test_sign_in() -> None:
    provider = Google()
    standin = canned_standin("google", ISSUER)
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid profile email"})
    check_token_request(outcome, standin, provider)
    check_account(outcome, provider, "110248495921238986420")
    assert mapped(outcome) == {
        "name": "Ada Lovelace",
        "email": "ada.lovelace@example.com",
        "image": "https://lh3.googleusercontent.com/a/ACg8ocJ5mXz0k3Qw=s96-c",
    }
    assert outcome.signed_in is not None
    assert outcome.signed_in["profile"]["hd"] == "example.com"
    assert provider.email_verified(outcome.signed_in["profile"])
    assert standin.unexpected == []


async def test_authorization_params_are_merged_key_by_key() -> None:
    provider = Google(authorization={"params": {"prompt": "consent", "access_type": "offline"}})
    standin = canned_standin("google", ISSUER)
    outcome = await sign_in_through(provider, standin)
    params = {"scope": "openid profile email", "prompt": "consent", "access_type": "offline"}
    check_authorization(outcome, standin, provider, params)


def test_registry_and_style() -> None:
    provider = built_in("google")
    assert isinstance(provider, type(Google()))
    assert (provider.id, provider.name, provider.type) == ("google", "Google", "oidc")
    assert provider.style is not None
    assert provider.style.brand_color == "#1a73e8"
    assert provider.checks == ("pkce",)
    assert provider.client_auth == "client_secret_basic"
