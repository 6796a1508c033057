"""Twitter (X): a sign-in against a stand-in of the X API v2 with recorded answers."""

from __future__ import annotations

from authui.providers.twitter import Twitter
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_signed_in,
    check_token_request,
)

TWITTER = Service(
    id="twitter",
    authorization="https://x.com/i/oauth2/authorize",
    token="https://api.x.com/2/oauth2/token",
    userinfo="GET https://api.x.com/2/users/me",
    params={"scope": "users.read tweet.read offline.access"},
    checks=("pkce", "state"),
)
TOKEN = canned("twitter/token.json")
USER = canned("twitter/user.json")


async def test_sign_in() -> None:
    standin = TWITTER.standin(TOKEN, USER)
    outcome = await sign_in_through(Twitter(), standin)

    check_authorization(outcome, TWITTER)
    check_token_request(outcome, standin, TWITTER)
    check_signed_in(
        outcome,
        TWITTER,
        TOKEN,
        account_id="2244994945",
        name="X Developers",
        email=None,
        image=USER["data"]["profile_image_url"],
    )
    sent = standin.sent("GET", "https://api.x.com/2/users/me")
    assert sent.url.params["user.fields"] == "profile_image_url"
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]


async def test_a_wrong_state_is_refused() -> None:
    standin = TWITTER.standin(TOKEN, USER)
    outcome = await sign_in_through(Twitter(), standin, callback_params={"state": "forged"})

    assert outcome.signed_in is None
    assert not any(r.method == "POST" for r in standin.requests)


def test_override_merges_params() -> None:
    provider = Twitter(authorization={"params": {"scope": "users.read tweet.read"}})

    check_param_override(provider, TWITTER, scope="users.read tweet.read")
    assert provider.checks == ("pkce", "state")
