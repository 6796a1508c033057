"""NetSuite: a sign-in against a stand-in of an account's NetSuite domains and a userinfo
RESTlet with recorded answers, and the settings the provider cannot do without."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from authui.checks import oauth_provider_errors
from authui.providers.netsuite import NetSuite
from tests.oauth.standin import CLIENT_ID, CLIENT_SECRET, canned, sign_in_through
from tests.providers.oauth2.plain_oauth import (
    Service,
    check_authorization,
    check_param_override,
    check_sign_in_refused,
    check_signed_in,
    check_token_request,
)

RESTLET = "https://tstdrv4819203.restlets.api.netsuite.com/app/site/hosting/restlet.nl"
NETSUITE = Service(
    id="netsuite",
    authorization="https://tstdrv4819203.app.netsuite.com/app/login/oauth2/authorize.nl",
    token="https://tstdrv4819203.suitetalk.api.netsuite.com/services/rest/auth/oauth2/v1/token",
    userinfo=f"GET {RESTLET}",
    params={"scope": "restlets rest_webservices"},
    checks=("pkce", "state"),
)
TOKEN = canned("netsuite/token.json")
USER = canned("netsuite/user.json")


def netsuite(**options: Any) -> Any:
    return NetSuite(account_id="TSTDRV4819203", userinfo=f"{RESTLET}?script=88&deploy=1", **options)


async def test_sign_in() -> None:
    standin = NETSUITE.standin(TOKEN, USER)
    outcome = await sign_in_through(netsuite(), standin)

    check_authorization(outcome, NETSUITE)
    check_token_request(outcome, standin, NETSUITE)
    user = {"name": "Marcus Bell", "email": "marcus.bell@netsuite.example"}
    assert outcome.session["user"] == user  # no image: no key
    check_signed_in(
        outcome,
        NETSUITE,
        TOKEN,  # expires_in is the string "3600"
        account_id="4612",
        image=None,
        **user,
    )
    assert outcome.account["refresh_token"] == TOKEN["refresh_token"]
    restlet = standin.sent("GET", RESTLET)
    assert dict(restlet.url.params) == {"script": "88", "deploy": "1"}
    assert restlet.headers["content-type"] == "application/json"
    assert restlet.headers["authorization"] == f"Bearer {TOKEN['access_token']}"


@pytest.mark.parametrize(
    ("settings", "missing"),
    [
        pytest.param({}, "authorization or token or userinfo", id="nothing"),
        pytest.param({"account_id": "TSTDRV4819203"}, "no userinfo", id="no RESTlet"),
        pytest.param({"userinfo": RESTLET}, "no authorization or token", id="no account"),
    ],
)
def test_the_configuration_check_names_what_is_missing(
    settings: dict[str, Any], missing: str
) -> None:
    provider = NetSuite(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, **settings)

    [error] = oauth_provider_errors(provider)
    assert missing in str(error)


def test_a_complete_configuration_passes_the_check() -> None:
    assert oauth_provider_errors(netsuite(client_id=CLIENT_ID, client_secret=CLIENT_SECRET)) == []


@pytest.mark.parametrize(
    "provider",
    [
        NetSuite(account_id="1234567_SB1", userinfo=RESTLET),
        NetSuite(options={"account_id": "1234567_SB1"}, userinfo={"url": RESTLET}),
    ],
    ids=["keyword", "options"],
)
def test_a_sandbox_account_id_is_written_as_netsuite_hosts_it(provider: Any) -> None:
    assert provider.authorization.url == (
        "https://1234567-sb1.app.netsuite.com/app/login/oauth2/authorize.nl"
    )
    assert provider.token.url.startswith("https://1234567-sb1.suitetalk.api.netsuite.com/")
    assert provider.options == {"account_id": "1234567_SB1"}
    assert provider.userinfo.url == RESTLET
    assert provider.userinfo.request is not None  # the RESTlet call, kept with the URL


async def test_a_restlet_without_name_or_email() -> None:
    outcome = await sign_in_through(netsuite(), NETSUITE.standin(TOKEN, {"id": 4612}))

    assert outcome.account["providerAccountId"] == "4612"
    assert outcome.user.get("name") is None
    assert outcome.user.get("email") is None


async def test_a_restlet_answering_a_list_ends_on_the_error_page(
    caplog: pytest.LogCaptureFixture,
) -> None:
    standin = NETSUITE.standin(TOKEN, [USER])
    await check_sign_in_refused(netsuite(), standin, caplog, "JSON object")


async def test_a_refused_code_ends_on_the_error_page(caplog: pytest.LogCaptureFixture) -> None:
    refused = httpx.Response(400, json=canned("netsuite/token_error.json"))
    standin = NETSUITE.standin(refused, USER)
    await check_sign_in_refused(netsuite(), standin, caplog, "answered 400: invalid_grant")
    assert not any(r.method == "GET" for r in standin.requests)


def test_override_merges_params() -> None:
    provider = netsuite(authorization={"params": {"prompt": "login consent"}})

    check_param_override(provider, NETSUITE, prompt="login consent")
    assert provider.client_auth == "client_secret_basic"
