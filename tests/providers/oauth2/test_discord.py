"""Discord: a sign-in against a stand-in of discord.com with recorded answers."""

from __future__ import annotations

import pytest

from authui.providers.discord import Discord
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_signed_in,
    check_token_request,
)

DISCORD = Service(
    id="discord",
    authorization="https://discord.com/api/oauth2/authorize",
    token="https://discord.com/api/oauth2/token",
    userinfo="GET https://discord.com/api/users/@me",
    params={"scope": "identify email"},
)
TOKEN = canned("discord/token.json")
USER = canned("discord/user.json")
CDN = "https://cdn.discordapp.com"


async def test_sign_in() -> None:
    standin = DISCORD.standin(TOKEN, USER)
    outcome = await sign_in_through(Discord(), standin)

    check_authorization(outcome, DISCORD)
    check_token_request(outcome, standin, DISCORD)
    check_signed_in(
        outcome,
        DISCORD,
        TOKEN,
        account_id="80351110224678912",
        name="Nelly",
        email="nelly@discord.example",
        image=f"{CDN}/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png",
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]


@pytest.mark.parametrize(
    ("changes", "image"),
    [
        ({"avatar": "a_1269e74af4df7417b13759eae50c83dc"},
         f"{CDN}/avatars/80351110224678912/a_1269e74af4df7417b13759eae50c83dc.gif"),
        ({"avatar": None}, f"{CDN}/embed/avatars/5.png"),  # (id >> 22) % 6
        ({"avatar": None, "discriminator": "1337"}, f"{CDN}/embed/avatars/2.png"),  # 1337 % 5
    ],
    ids=["animated avatar", "no avatar", "no avatar, legacy discriminator"],
)  # fmt: skip
async def test_avatar(changes: dict[str, str | None], image: str) -> None:
    outcome = await sign_in_through(Discord(), DISCORD.standin(TOKEN, {**USER, **changes}))

    assert outcome.user["image"] == image


@pytest.mark.parametrize(
    ("changes", "name", "verified"),
    [
        ({}, "Nelly", True),
        ({"global_name": None, "verified": False}, "nelly", False),
    ],
)
async def test_name_and_email_verification(
    changes: dict[str, object], name: str, verified: bool
) -> None:
    outcome = await sign_in_through(Discord(), DISCORD.standin(TOKEN, {**USER, **changes}))

    assert outcome.user["name"] == name
    assert outcome.signed_in is not None
    assert Discord().email_verified(outcome.signed_in["profile"]) is verified


def test_override_merges_params() -> None:
    provider = Discord(authorization={"params": {"scope": "identify email guilds"}})

    check_param_override(provider, DISCORD, scope="identify email guilds")
