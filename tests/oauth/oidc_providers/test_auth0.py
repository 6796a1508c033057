"""Auth0: issuer from the user (a discovery document whose issuer ends in a slash), PKCE,
Basic client auth, the default profile."""

from __future__ import annotations

import pytest

from authui.providers.auth0 import Auth0
from tests.oauth.oidc_providers.common import (
    canned_standin,
    check_account,
    check_authorization,
    check_configuration_error,
    check_token_request,
    issuer_from_env,
    mapped,
    sign_in_without_issuer,
)
from tests.oauth.standin import sign_in_through

DOMAIN = "https://dev-abc123.us.auth0.com"


async def test_sign_in_with_issuer_without_its_trailing_slash() -> None:
    provider = Auth0(issuer=DOMAIN)
    standin = canned_standin("auth0", f"{DOMAIN}/")
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid profile email"})
    check_token_request(outcome, standin, provider)
    check_account(outcome, provider, "auth0|6643a1b2c3d4e5f6a7b8c9d0")
    assert mapped(outcome) == {
        "name": "Jane Doe",
        "email": "jane.doe@example.com",
        "image": "https://s.gravatar.com/avatar/9d4e7e6f.png",
    }
    assert outcome.signed_in is not None
    assert provider.email_verified(outcome.signed_in["profile"])


async def test_issuer_from_env() -> None:
    provider = issuer_from_env(Auth0(), f"{DOMAIN}/")
    assert provider.issuer == f"{DOMAIN}/"
    outcome = await sign_in_through(provider, canned_standin("auth0", f"{DOMAIN}/"))
    assert outcome.account["providerAccountId"] == "auth0|6643a1b2c3d4e5f6a7b8c9d0"


async def test_without_issuer_is_a_configuration_error(caplog: pytest.LogCaptureFixture) -> None:
    assert Auth0().issuer is None
    check_configuration_error(await sign_in_without_issuer(Auth0()), caplog.text, "auth0")
