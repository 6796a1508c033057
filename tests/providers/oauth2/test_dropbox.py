"""Dropbox: a sign-in against a stand-in of the Dropbox API with recorded answers."""

from __future__ import annotations

import pytest

from authui.providers.dropbox import Dropbox
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_signed_in,
    check_token_request,
)

DROPBOX = Service(
    id="dropbox",
    authorization="https://www.dropbox.com/oauth2/authorize",
    token="https://api.dropboxapi.com/oauth2/token",
    userinfo="POST https://api.dropboxapi.com/2/users/get_current_account",
    params={"token_access_type": "offline", "scope": "account_info.read"},
)
TOKEN = canned("dropbox/token.json")
USER = canned("dropbox/user.json")


async def test_sign_in() -> None:
    standin = DROPBOX.standin(TOKEN, USER)
    outcome = await sign_in_through(Dropbox(), standin)

    check_authorization(outcome, DROPBOX)
    check_token_request(outcome, standin, DROPBOX)
    check_signed_in(
        outcome,
        DROPBOX,
        TOKEN,
        account_id="dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc",
        name="Franz Ferdinand (Personal)",
        email="franz@example.com",
        image=USER["profile_photo_url"],
    )
    sent = standin.sent("POST", "https://api.dropboxapi.com/2/users/get_current_account")
    assert sent.content == b""
    assert sent.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]


@pytest.mark.parametrize("verified", [True, False])
async def test_email_verified(verified: bool) -> None:
    user = {**USER, "email_verified": verified}
    outcome = await sign_in_through(Dropbox(), DROPBOX.standin(TOKEN, user))

    assert outcome.signed_in is not None
    assert Dropbox().email_verified(outcome.signed_in["profile"]) is verified


def test_override_merges_params() -> None:
    provider = Dropbox(authorization={"params": {"scope": "account_info.read files.metadata.read"}})

    check_param_override(provider, DROPBOX, scope="account_info.read files.metadata.read")
