"""VK: a sign-in against a stand-in of oauth.vk.com and api.vk.com with recorded
answers."""

from __future__ import annotations

import dataclasses
from typing import Any

import httpx
import pytest

from authui.providers.vk import VK
from tests.oauth.standin import canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

VK_SERVICE = Service(
    id="vk",
    authorization="https://oauth.vk.com/authorize",
    token="https://oauth.vk.com/access_token",
    userinfo="GET https://api.vk.com/method/users.get",
    params={"scope": "email", "v": "5.131"},
    checks=("state",),
)
TOKEN = canned("vk/token.json")
USER = canned("vk/user.json")
PERSON = USER["response"][0]


def _user(**changes: Any) -> dict[str, Any]:
    """The recorded ``users.get`` answer with the person's fields changed (``None``: left
    out)."""
    person = {k: v for k, v in {**PERSON, **changes}.items() if v is not None}
    return {"response": [person]}


async def test_sign_in() -> None:
    standin = VK_SERVICE.standin(TOKEN, USER)
    outcome = await sign_in_through(VK(), standin)

    check_authorization(outcome, VK_SERVICE)
    check_token_request(outcome, standin, VK_SERVICE, in_form=True)
    assert standin.sent("POST", VK_SERVICE.token).url.params["v"] == "5.131"
    check_signed_in(
        outcome,
        VK_SERVICE,
        TOKEN,
        account_id="743784474",
        name="Иван Петров",
        email="ivan.petrov@mail.example",
        image=PERSON["photo_100"],
    )
    users_get = standin.sent("GET", "https://api.vk.com/method/users.get")
    assert dict(users_get.url.params) == {"fields": "photo_100", "v": "5.131"}
    assert users_get.headers["authorization"] == f"Bearer {TOKEN['access_token']}"
    assert outcome.signed_in is not None
    assert outcome.signed_in["profile"]["email"] == "ivan.petrov@mail.example"


@pytest.mark.parametrize(
    ("token", "user", "expected"),
    [
        pytest.param({k: v for k, v in TOKEN.items() if k != "email"}, USER,
                     {"name": "Иван Петров", "image": PERSON["photo_100"]},
                     id="email scope not granted"),
        pytest.param(TOKEN, _user(last_name=""),
                     {"name": "Иван", "email": "ivan.petrov@mail.example",
                      "image": PERSON["photo_100"]},
                     id="no last name"),
        pytest.param(TOKEN, _user(photo_100=None, first_name=None, last_name=None),
                     {"email": "ivan.petrov@mail.example"},
                     id="no name, no photo"),
    ],
)  # fmt: skip
async def test_profile_edges(
    token: dict[str, Any], user: dict[str, Any], expected: dict[str, str]
) -> None:
    outcome = await sign_in_through(VK(), VK_SERVICE.standin(token, user))

    assert {k: v for k, v in outcome.user.items() if k != "id" and v is not None} == expected
    assert outcome.account["providerAccountId"] == "743784474"


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(401, json=canned("vk/token_error.json"))
    standin = VK_SERVICE.standin(refused, USER)
    await check_sign_in_refused(VK(), standin, caplog, "answered 401: invalid_grant")
    assert not any(r.method == "GET" for r in standin.requests)


async def test_an_api_error_in_a_200_answer_ends_on_the_error_page(
    caplog: pytest.LogCaptureFixture,
) -> None:
    standin = VK_SERVICE.standin(TOKEN, canned("vk/users_get_error.json"))
    await check_sign_in_refused(
        VK(), standin, caplog, "users.get answered error 5: User authorization failed"
    )


def test_override_merges_params() -> None:
    provider = VK(authorization={"params": {"scope": "email,friends"}})

    versioned = dataclasses.replace(VK_SERVICE, token=f"{VK_SERVICE.token}?v=5.131")
    check_param_override(provider, versioned, scope="email,friends")
    assert provider.client_auth == "client_secret_post"
