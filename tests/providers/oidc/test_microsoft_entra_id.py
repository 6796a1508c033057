"""Microsoft Entra ID: the ``common`` issuer's ``{tenantid}`` checked against ``tid``, a
tenant of one's own, and the photo from Microsoft Graph."""

from __future__ import annotations

import base64
from typing import Any

import httpx
import pytest

from authui import AuthConfig, set_env_defaults
from authui.providers.microsoft_entra_id import MicrosoftEntraID
from authui.providers.oauth import OAuthProvider
from tests.oauth.standin import OIDCStandIn, canned, sign_in_through
from tests.providers.oidc.common import (
    canned_standin,
    check_account,
    check_authorization,
    check_token_request,
    location,
    mapped,
)

COMMON = "https://login.microsoftonline.com/common/v2.0"
TID = "9188040d-6c67-4c5b-b112-36a304b66dad"
SUB = "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ"
PHOTO = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00 not really a jpeg"
GRAPH = "https://graph.microsoft.com/v1.0/me/photos"


def photo(request: httpx.Request) -> httpx.Response:
    assert request.headers["authorization"] == f"Bearer {canned_token()['access_token']}"
    return httpx.Response(200, content=PHOTO, headers={"content-type": "image/jpeg"})


def no_photo(request: httpx.Request) -> httpx.Response:
    error = {"error": {"code": "ImageNotFound", "message": "Exception of type ImageNotFound"}}
    return httpx.Response(404, json=error)


def canned_token() -> dict[str, Any]:
    token: dict[str, Any] = canned("microsoft-entra-id/token.json")
    return token


def entra_standin(
    routes: dict[str, Any] | None = None, issuer: str = COMMON, **kwargs: Any
) -> OIDCStandIn:
    settings: dict[str, Any] = {
        "routes": routes if routes is not None else {f"GET {GRAPH}/48x48/$value": photo},
        **kwargs,
    }
    return canned_standin("microsoft-entra-id", issuer, **settings)


async def test_sign_in_through_common_with_photo() -> None:
    provider = MicrosoftEntraID()
    assert provider.issuer == COMMON
    standin = entra_standin()
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid profile email User.Read"})
    check_token_request(outcome, standin, provider)
    account = check_account(outcome, provider, SUB)
    assert account["scope"] == "openid profile email User.Read"
    image = f"data:image/jpeg;base64,{base64.b64encode(PHOTO).decode()}"
    assert mapped(outcome) == {"name": "Megan Bowen", "email": "meganb@contoso.com", "image": image}
    assert outcome.signed_in is not None
    profile = outcome.signed_in["profile"]
    assert profile["tid"] == TID
    assert profile["iss"] == f"https://login.microsoftonline.com/{TID}/v2.0"
    assert not provider.email_verified(profile)  # Entra sends no email_verified
    assert standin.unexpected == []


def unreachable(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("graph.microsoft.com is unreachable", request=request)


@pytest.mark.parametrize("answer", [no_photo, unreachable])
async def test_no_photo_gives_no_image(answer: Any) -> None:
    standin = entra_standin({f"GET {GRAPH}/48x48/$value": answer})
    outcome = await sign_in_through(MicrosoftEntraID(), standin)
    assert mapped(outcome) == {"name": "Megan Bowen", "email": "meganb@contoso.com"}
    assert standin.sent("GET", f"{GRAPH}/48x48/")


async def test_photo_size_option() -> None:
    standin = entra_standin({f"GET {GRAPH}/96x96/$value": photo})
    outcome = await sign_in_through(MicrosoftEntraID(profile_photo_size=96), standin)
    assert outcome.user["image"].startswith("data:image/jpeg;base64,")
    assert standin.unexpected == []


async def test_id_token_of_another_tenant_than_its_tid_is_refused(
    caplog: pytest.LogCaptureFixture,
) -> None:
    claims = {**canned("microsoft-entra-id/id_token.json"), "tid": "another-tenant"}
    outcome = await sign_in_through(MicrosoftEntraID(), entra_standin(claims=claims))
    assert outcome.signed_in is None
    assert "error=" in location(outcome.callback)
    assert "Invalid claim: 'iss'" in caplog.text


async def test_tenant_option_sets_the_issuer() -> None:
    issuer = f"https://login.microsoftonline.com/{TID}/v2.0"
    provider = MicrosoftEntraID(tenant_id=TID)
    assert provider.issuer == issuer
    assert provider.options["tenant_id"] == TID
    base = f"https://login.microsoftonline.com/{TID}"
    discovery = {
        **canned("microsoft-entra-id/discovery.json"),
        "issuer": issuer,
        "authorization_endpoint": f"{base}/oauth2/v2.0/authorize",
        "token_endpoint": f"{base}/oauth2/v2.0/token",
        "jwks_uri": f"{base}/discovery/v2.0/keys",
    }
    standin = entra_standin(issuer=issuer, discovery=discovery)
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, {"scope": "openid profile email User.Read"})
    check_token_request(outcome, standin, provider)
    check_account(outcome, provider, SUB)


async def test_token_error_in_the_body_ends_the_sign_in(caplog: pytest.LogCaptureFixture) -> None:
    error = {
        "error": "invalid_grant",
        "error_description": "AADSTS70008: The provided authorization code has expired.",
        "error_codes": [70008],
        "trace_id": "0000aaaa-11bb-cccc-dd22-eeeeee333333",
    }
    standin = entra_standin()
    standin.routes[f"POST {standin.discovery['token_endpoint']}"] = error
    outcome = await sign_in_through(MicrosoftEntraID(), standin)
    assert outcome.signed_in is None
    assert "error=" in location(outcome.callback)
    assert "AADSTS70008" in caplog.text


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ({"issuer": "https://login.microsoftonline.com/consumers/v2.0"}, "consumers"),
        ({"tenant_id": "organizations"}, "organizations"),
        ({"options": {"tenant_id": "contoso.onmicrosoft.com"}}, "contoso.onmicrosoft.com"),
    ],
)
def test_issuer_choices(override: dict[str, Any], expected: str) -> None:
    provider: OAuthProvider = MicrosoftEntraID(**override)
    assert provider.issuer == f"https://login.microsoftonline.com/{expected}/v2.0"


def test_issuer_from_the_environment_replaces_the_common_default() -> None:
    env = {"AUTH_MICROSOFT_ENTRA_ID_ISSUER": "https://login.microsoftonline.com/contoso/v2.0"}
    [provider] = set_env_defaults(env, AuthConfig(providers=[MicrosoftEntraID()])).providers
    assert isinstance(provider, OAuthProvider)
    assert provider.issuer == env["AUTH_MICROSOFT_ENTRA_ID_ISSUER"]
    [chosen] = set_env_defaults(
        env, AuthConfig(providers=[MicrosoftEntraID(tenant_id="fabrikam")])
    ).providers
    assert isinstance(chosen, OAuthProvider)
    assert chosen.issuer == "https://login.microsoftonline.com/fabrikam/v2.0"
