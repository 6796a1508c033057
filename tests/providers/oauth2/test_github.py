"""GitHub: a sign-in against a stand-in of github.com with recorded answers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.providers.github import GitHub
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_signed_in,
    check_token_request,
)

GITHUB = Service(
    id="github",
    authorization="https://github.com/login/oauth/authorize",
    token="https://github.com/login/oauth/access_token",
    userinfo="GET https://api.github.com/user",
    params={"scope": "read:user user:email"},
)
EMAILS = "GET https://api.github.com/user/emails"
TOKEN = canned("github/token.json")
USER = canned("github/user.json")


async def test_sign_in() -> None:
    standin = GITHUB.standin(TOKEN, USER, **{EMAILS: canned("github/emails.json")})
    outcome = await sign_in_through(GitHub(), standin, query={"login": "mona-lisa"})

    check_authorization(outcome, GITHUB, login="mona-lisa")
    check_token_request(outcome, standin, GITHUB)
    check_signed_in(
        outcome,
        GITHUB,
        TOKEN,
        account_id="583231",
        name="Mona Lisa Octocat",
        email="mona@example.com",
        image="https://avatars.githubusercontent.com/u/583231?v=4",
    )
    profile = outcome.signed_in["profile"] if outcome.signed_in else {}
    assert profile["login"] == "mona-lisa"
    assert profile["email_verified"] is True
    assert GitHub().email_verified(profile) is True
    for url in ("https://api.github.com/user", "https://api.github.com/user/emails"):
        sent = standin.sent("GET", url)
        assert sent.headers["user-agent"] == "authui"
        assert sent.headers["authorization"] == f"Bearer {TOKEN['access_token']}"


def _emails(*entries: tuple[str, bool, bool]) -> list[dict[str, Any]]:
    return [
        {"email": email, "primary": primary, "verified": verified, "visibility": None}
        for email, primary, verified in entries
    ]


def not_found(request: httpx.Request) -> httpx.Response:
    return httpx.Response(404, json={"message": "Not Found"})


@pytest.mark.parametrize(
    ("public", "emails", "email", "verified"),
    [
        pytest.param(
            None,
            canned("github/emails.json"),
            "mona.lisa@work.example",
            True,
            id="no public email: the primary verified one",
        ),
        pytest.param(
            None,
            _emails(("a@example.com", True, False), ("b@example.com", False, True)),
            "b@example.com",
            True,
            id="an unverified primary loses to a verified one",
        ),
        pytest.param(
            None,
            _emails(("a@example.com", True, False)),
            "a@example.com",
            False,
            id="only an unverified address: kept, not vouched for",
        ),
        pytest.param(
            "Mona@Example.com",
            _emails(("other@example.com", True, True)),
            "mona@example.com",
            False,
            id="public email not in the list",
        ),
        pytest.param(
            "mona@example.com", not_found, "mona@example.com", False, id="no user:email scope"
        ),
        pytest.param(None, not_found, None, False, id="no email at all"),
    ],
)
async def test_email_from_the_email_list(
    public: str | None, emails: Any, email: str | None, verified: bool
) -> None:
    standin = GITHUB.standin(TOKEN, {**USER, "email": public}, **{EMAILS: emails})
    outcome = await sign_in_through(GitHub(), standin)

    assert outcome.user["email"] == email
    assert outcome.signed_in is not None
    assert GitHub().email_verified(outcome.signed_in["profile"]) is verified


async def test_enterprise_server() -> None:
    ghe = Service(
        id="github",
        authorization="https://ghe.example.com/login/oauth/authorize",
        token="https://ghe.example.com/login/oauth/access_token",
        userinfo="GET https://ghe.example.com/api/v3/user",
        params={"scope": "read:user user:email"},
    )
    standin = ghe.standin(
        TOKEN,
        USER,
        **{"GET https://ghe.example.com/api/v3/user/emails": canned("github/emails.json")},
    )
    provider = GitHub(enterprise_url="https://ghe.example.com/")
    outcome = await sign_in_through(
        provider, standin, callback_params={"iss": "https://ghe.example.com/login/oauth"}
    )

    assert provider.issuer == "https://ghe.example.com/login/oauth"
    assert provider.options == {"enterprise_url": "https://ghe.example.com"}
    assert GitHub(options={"enterprise_url": "https://ghe.example.com"}).token == provider.token
    check_authorization(outcome, ghe)
    check_token_request(outcome, standin, ghe)
    assert outcome.account["providerAccountId"] == "583231"
    assert standin.unexpected == []


@pytest.mark.parametrize(
    ("iss", "signed_in"),
    [("https://github.com/login/oauth", True), ("https://evil.example/login/oauth", False)],
)
async def test_callback_iss_must_be_github(iss: str, signed_in: bool) -> None:
    standin = GITHUB.standin(TOKEN, USER, **{EMAILS: canned("github/emails.json")})
    outcome = await sign_in_through(GitHub(), standin, callback_params={"iss": iss})

    assert (outcome.signed_in is not None) is signed_in


async def test_override_replaces_only_the_scope() -> None:
    provider = GitHub(authorization={"params": {"scope": "read:user"}})

    check_param_override(provider, GITHUB, scope="read:user")
    assert provider.userinfo == GitHub().userinfo
    assert provider.style is not None
    assert provider.style.brand_color == "#24292f"
