"""Spotify: a sign-in against a stand-in of accounts.spotify.com with recorded answers."""

from __future__ import annotations

from authui.providers.spotify import Spotify
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_signed_in,
    check_token_request,
)

SPOTIFY = Service(
    id="spotify",
    authorization="https://accounts.spotify.com/authorize",
    token="https://accounts.spotify.com/api/token",
    userinfo="GET https://api.spotify.com/v1/me",
    params={"scope": "user-read-email"},
)
TOKEN = canned("spotify/token.json")
USER = canned("spotify/user.json")


async def test_sign_in() -> None:
    standin = SPOTIFY.standin(TOKEN, USER)
    outcome = await sign_in_through(Spotify(), standin)

    check_authorization(outcome, SPOTIFY)
    check_token_request(outcome, standin, SPOTIFY)
    check_signed_in(
        outcome,
        SPOTIFY,
        TOKEN,
        account_id="wizzler",
        name="JM Wizzler",
        email="wizzler@example.com",
        image="https://i.scdn.co/image/ab6775700000ee8555c25988a6ac314394d3fbf5",
    )


async def test_no_image_and_never_a_verified_email() -> None:
    user = {**USER, "images": [], "email_verified": True}
    outcome = await sign_in_through(Spotify(), SPOTIFY.standin(TOKEN, user))

    assert "image" not in outcome.user
    assert outcome.signed_in is not None
    assert Spotify().email_verified(outcome.signed_in["profile"]) is False


def test_override_merges_params() -> None:
    provider = Spotify(authorization={"params": {"scope": "user-read-email user-top-read"}})

    check_param_override(provider, SPOTIFY, scope="user-read-email user-top-read")
