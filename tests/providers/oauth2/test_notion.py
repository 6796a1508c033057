"""Notion: a sign-in against a stand-in of api.notion.com with recorded answers."""

from __future__ import annotations

from authui.providers.notion import Notion
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_signed_in,
    check_token_request,
)

NOTION = Service(
    id="notion",
    authorization="https://api.notion.com/v1/oauth/authorize",
    token="https://api.notion.com/v1/oauth/token",
    userinfo="GET https://api.notion.com/v1/users/me",
    params={"owner": "user"},
)
TOKEN = canned("notion/token.json")
ME = canned("notion/users_me.json")


async def test_sign_in() -> None:
    standin = NOTION.standin(TOKEN, ME)
    outcome = await sign_in_through(Notion(), standin)

    check_authorization(outcome, NOTION)
    check_token_request(outcome, standin, NOTION)
    check_signed_in(
        outcome,
        NOTION,
        TOKEN,
        account_id="e79a0b74-3aba-4149-9f74-0bb5791a6ee6",
        name="Sam Lee",
        email="sam.lee@example.com",
        image=ME["bot"]["owner"]["user"]["avatar_url"],
    )
    sent = standin.sent("GET", "https://api.notion.com/v1/users/me")
    assert sent.headers["notion-version"] == "2022-06-28"
    assert sent.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert outcome.signed_in is not None
    assert outcome.signed_in["profile"] == ME["bot"]["owner"]["user"]


async def test_a_bot_owned_by_a_workspace_signs_nobody_in() -> None:
    me = {**ME, "bot": {"owner": {"type": "workspace", "workspace": True}}}
    outcome = await sign_in_through(Notion(), NOTION.standin(TOKEN, me))

    assert outcome.signed_in is None


def test_override_merges_params() -> None:
    provider = Notion(authorization={"params": {"owner": "user", "state": "x"}})

    check_param_override(provider, NOTION, state="x")
    assert "scope" not in provider.authorization.params
