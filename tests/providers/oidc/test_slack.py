"""Slack: nonce only, Basic client auth, a token without expiry, namespaced claims."""

from __future__ import annotations

import pytest

from authui.providers.slack import Slack
from tests.oauth.standin import sign_in_through
from tests.providers.oidc.common import (
    canned_standin,
    check_account,
    check_authorization,
    check_token_request,
    location,
    mapped,
)


async def test_sign_in() -> None:
    provider = Slack()
    standin = canned_standin("slack", "https://slack.com")
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid profile email"})
    assert "state" not in outcome.params
    assert "code_challenge" not in outcome.params
    check_token_request(outcome, standin, provider)
    account = check_account(outcome, provider, "U0R7JM")
    assert "expires_at" not in account
    assert mapped(outcome) == {
        "name": "krane",
        "email": "krane@slack-corp.com",
        "image": "https://secure.gravatar.com/avatar/bc.png",
    }
    assert outcome.signed_in is not None
    assert outcome.signed_in["profile"]["https://slack.com/team_id"] == "T0R7GR"


async def test_ok_false_token_answer_ends_the_sign_in(caplog: pytest.LogCaptureFixture) -> None:
    standin = canned_standin("slack", "https://slack.com")
    standin.routes[f"POST {standin.discovery['token_endpoint']}"] = {
        "ok": False,
        "error": "invalid_code",
    }
    outcome = await sign_in_through(Slack(), standin)
    assert outcome.signed_in is None
    assert "error=" in location(outcome.callback)
    assert "invalid_code" in caplog.text
