"""Eventbrite: a sign-in against a stand-in of www.eventbrite.com and its API with
recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.eventbrite import Eventbrite
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

EVENTBRITE = Service(
    id="eventbrite",
    authorization="https://www.eventbrite.com/oauth/authorize",
    token="https://www.eventbrite.com/oauth/token",
    userinfo="GET https://www.eventbriteapi.com/v3/users/me/",
    params={"scope": "user.profile"},
)
TOKEN = canned("eventbrite/token.json")
USER = canned("eventbrite/user.json")
IMAGE = "https://img.evbuc.com/https%3A%2F%2Fcdn.evbuc.com%2Fimages%2F781622419%2F1%2Foriginal.jpg"


def _emails(*entries: tuple[str, bool, bool]) -> list[dict[str, Any]]:
    return [{"email": e, "primary": p, "verified": v} for e, p, v in entries]


async def test_sign_in() -> None:
    standin = EVENTBRITE.standin(TOKEN, USER)
    outcome = await sign_in_through(Eventbrite(), standin)

    check_authorization(outcome, EVENTBRITE)
    check_token_request(outcome, standin, EVENTBRITE, in_form=True)
    check_signed_in(
        outcome,
        EVENTBRITE,
        TOKEN,
        account_id="128559602587",
        name="Jo Kimura",
        email="jo.kimura@fourthcoffee.example",  # the primary address, not the first
        image=IMAGE,
    )
    assert outcome.signed_in is not None
    assert Eventbrite().email_verified(outcome.signed_in["profile"]) is True


@pytest.mark.parametrize(
    ("emails", "email", "verified"),
    [
        pytest.param(
            _emails(("a@example.com", False, True), ("b@example.com", True, False)),
            "b@example.com", False, id="unverified primary: kept, not vouched for",
        ),
        pytest.param(
            _emails(("a@example.com", False, True), ("b@example.com", False, False)),
            "a@example.com", True, id="no primary: the first",
        ),
        pytest.param([], None, False, id="no address"),
    ],
)  # fmt: skip
async def test_email_from_the_list(
    emails: list[dict[str, Any]], email: str | None, verified: bool
) -> None:
    standin = EVENTBRITE.standin(TOKEN, {**USER, "emails": emails})
    outcome = await sign_in_through(Eventbrite(), standin)

    assert outcome.user.get("email") == email
    assert outcome.signed_in is not None
    assert Eventbrite().email_verified(outcome.signed_in["profile"]) is verified


@pytest.mark.parametrize(
    ("changes", "name", "image"),
    [
        pytest.param({"image_id": None}, "Jo Kimura", None, id="no image"),
        pytest.param({"name": ""}, "Jo Kimura", IMAGE, id="no name: first and last"),
        pytest.param({"name": "", "last_name": ""}, "Jo", IMAGE, id="first name only"),
    ],
)
async def test_profile_edges(changes: dict[str, Any], name: str, image: str | None) -> None:
    outcome = await sign_in_through(Eventbrite(), EVENTBRITE.standin(TOKEN, {**USER, **changes}))

    assert outcome.user["name"] == name
    assert outcome.user.get("image") == image


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("eventbrite/token_error.json"))
    standin = EVENTBRITE.standin(refused, USER)
    await check_sign_in_refused(Eventbrite(), standin, caplog, "invalid_grant")


def test_override_adds_params() -> None:
    provider = Eventbrite(authorization={"params": {"prompt": "login"}})

    check_param_override(provider, EVENTBRITE, prompt="login")
    assert provider.client_auth == "client_secret_post"
