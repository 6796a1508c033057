"""LinkedIn: state only (no PKCE), client_secret_post, a comma-separated token scope."""

from __future__ import annotations

from authui.providers.linkedin import LinkedIn
from tests.oauth.standin import sign_in_through
from tests.providers.oidc.common import (
    canned_standin,
    check_account,
    check_authorization,
    check_token_request,
    mapped,
)


async def test_sign_in() -> None:
    provider = LinkedIn()
    assert provider.checks == ("state",)
    standin = canned_standin("linkedin", "https://www.linkedin.com/oauth")
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid profile email"})
    check_token_request(outcome, standin, provider)
    account = check_account(outcome, provider, "782bbtaQ")
    assert account["scope"] == "email,openid,profile"
    assert mapped(outcome) == {
        "name": "John Doe",
        "email": "doe@email.com",
        "image": "https://media.licdn.com/dms/image/C5F03AQHqK8v/profile-displayphoto-shrink_100_100/0/1516320000000",
    }
    assert outcome.signed_in is not None
    assert provider.email_verified(outcome.signed_in["profile"])
    assert standin.unexpected == []
