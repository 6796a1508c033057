"""The OpenID providers whose issuer comes from the user (``issuer=`` or
``AUTH_<ID>_ISSUER``): Auth0, authentik, Cognito, Keycloak, Okta and ZITADEL.

One row per provider holds its facts; the same three tests run for each: a sign-in through
a stand-in answering the recorded discovery document, id_token claims and token response;
the issuer taken from the environment; and the refusal of a configuration without an
issuer. Each row's quirk is a fact of the row (see its comment); Cognito's string
``email_verified`` has a small test of its own at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from authui.providers.auth0 import Auth0
from authui.providers.authentik import Authentik
from authui.providers.cognito import Cognito
from authui.providers.keycloak import Keycloak
from authui.providers.oauth import OAuthProvider
from authui.providers.okta import Okta
from authui.providers.zitadel import Zitadel
from tests.oauth.standin import CLIENT_ID, sign_in_through
from tests.providers.oidc.common import (
    canned_standin,
    check_account,
    check_authorization,
    check_configuration_error,
    check_token_request,
    issuer_from_env,
    mapped,
    sign_in_without_issuer,
)

OIDC_SCOPE = {"scope": "openid profile email"}


@dataclass(frozen=True)
class IssuerProvider:
    """One provider's facts, as a sign-in through its recorded answers must show them.

    Attributes:
        id: The provider id, also the folder of its recorded answers under ``canned/``.
        factory: The built-in provider's function.
        issuer: The issuer as its discovery document (and the id_token) names it; what
            ``AUTH_<ID>_ISSUER`` is set to.
        sub: The id_token's ``sub``, the account's ``providerAccountId``.
        user: The user authui signs in (without its own id).
        email_verified: What the provider says of the profile's email.
        checks: The provider's checks.
        given_issuer: The ``issuer=`` the user passes, when it differs from ``issuer``.
        profile: Claims the signed-in profile holds, exactly.
        account: Fields the account keeps, exactly.
        not_in_account: Fields the account must not have.
        authorization_endpoint: The authorization URL (without its query), when it lives
            elsewhere than the issuer.
    """

    id: str
    factory: Callable[..., OAuthProvider]
    issuer: str
    sub: str
    user: Mapping[str, str]
    email_verified: bool
    checks: tuple[str, ...] = ("pkce",)
    given_issuer: str | None = None
    profile: Mapping[str, Any] = field(default_factory=dict)
    account: Mapping[str, Any] = field(default_factory=dict)
    not_in_account: tuple[str, ...] = ()
    authorization_endpoint: str | None = None


AUTH0_DOMAIN = "https://dev-abc123.us.auth0.com"
COGNITO_ISSUER = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf123"
COGNITO_SUB = "a1b2c3d4-5e6f-7081-92a3-b4c5d6e7f809"

PROVIDERS = [
    # Auth0: a discovery document whose issuer ends in a slash, the user's issuer without
    # it; the default profile.
    IssuerProvider(
        id="auth0",
        factory=Auth0,
        issuer=f"{AUTH0_DOMAIN}/",
        given_issuer=AUTH0_DOMAIN,
        sub="auth0|6643a1b2c3d4e5f6a7b8c9d0",
        user={
            "name": "Jane Doe",
            "email": "jane.doe@example.com",
            "image": "https://s.gravatar.com/avatar/9d4e7e6f.png",
        },
        email_verified=True,
    ),
    # authentik: the issuer with its trailing slash, ``email_verified`` false by default.
    IssuerProvider(
        id="authentik",
        factory=Authentik,
        issuer="https://auth.example.com/application/o/webapp/",
        sub="3e8f2a1c7b6d5e4f9a0b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f",
        user={"name": "Hedy Lamarr", "email": "hedy@example.com"},
        email_verified=False,
        profile={"iss": "https://auth.example.com/application/o/webapp/"},
        account={"expires_in": 300},
    ),
    # Cognito: the issuer is a user pool, the endpoints are on the pool's domain;
    # ``email_verified`` a string for a federated user.
    IssuerProvider(
        id="cognito",
        factory=Cognito,
        issuer=COGNITO_ISSUER,
        sub=COGNITO_SUB,
        user={"name": "Katherine Johnson", "email": "katherine@example.com"},
        email_verified=True,
        profile={"cognito:username": "google_104593020345678901234", "email_verified": "true"},
        authorization_endpoint="https://acme-auth.auth.eu-west-1.amazoncognito.com/oauth2/authorize",
    ),
    # Keycloak: the issuer is a realm; ``session_state`` kept with the account.
    IssuerProvider(
        id="keycloak",
        factory=Keycloak,
        issuer="https://sso.example.com/realms/acme",
        sub="f4b2a6c8-1d3e-4f5a-8b7c-9d0e1f2a3b4c",
        user={"name": "Rosalind Franklin", "email": "rosalind@example.com"},
        email_verified=True,
        account={
            "session_state": "3a9d7f5e-2b1c-4e8d-a6f0-7c5b3d1e9f2a",
            "refresh_token": "eyJhbGciOiJIUzUxMiIsInR5cCIgOiAiSldUIiwia2lkIiA6.kc-refresh",
        },
    ),
    # Okta: the issuer here a custom authorization server; PKCE and state; a thin
    # id_token without ``email_verified`` (only userinfo says it).
    IssuerProvider(
        id="okta",
        factory=Okta,
        issuer="https://dev-1234567.okta.com/oauth2/default",
        sub="00uid4BxXw6I6TV4m0g3",
        user={"name": "Isaac Brock", "email": "isaac.brock@example.com"},
        email_verified=False,
        checks=("pkce", "state"),
        account={"scope": "openid profile email"},
    ),
    # ZITADEL: an id_token whose ``aud`` also names the project (``azp`` is the client);
    # no refresh token, as no ``offline_access`` was asked for.
    IssuerProvider(
        id="zitadel",
        factory=Zitadel,
        issuer="https://acme-x1y2z3.zitadel.cloud",
        sub="263914985938370565",
        user={"name": "Alan Turing", "email": "alan.turing@example.com"},
        email_verified=True,
        profile={"aud": [CLIENT_ID, "263914782003619845"], "azp": CLIENT_ID},
        not_in_account=("refresh_token",),
    ),
]

each_provider = pytest.mark.parametrize("row", PROVIDERS, ids=[row.id for row in PROVIDERS])


@each_provider
async def test_sign_in(row: IssuerProvider) -> None:
    provider = row.factory(issuer=row.given_issuer or row.issuer)
    standin = canned_standin(row.id, row.issuer)
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, OIDC_SCOPE)
    check_token_request(outcome, standin, provider)
    account = check_account(outcome, provider, row.sub)
    assert mapped(outcome) == row.user
    assert outcome.signed_in is not None
    profile = outcome.signed_in["profile"]
    assert provider.checks == row.checks
    assert provider.email_verified(profile) is row.email_verified
    assert {key: profile.get(key) for key in row.profile} == row.profile
    assert {key: account.get(key) for key in row.account} == row.account
    assert [key for key in row.not_in_account if key in account] == []
    if row.authorization_endpoint is not None:
        assert outcome.authorization_url.startswith(f"{row.authorization_endpoint}?")
    assert standin.unexpected == []


@each_provider
async def test_issuer_from_env(row: IssuerProvider) -> None:
    provider = issuer_from_env(row.factory(), row.issuer)
    assert provider.issuer == row.issuer
    outcome = await sign_in_through(provider, canned_standin(row.id, row.issuer))
    assert outcome.account["providerAccountId"] == row.sub


@each_provider
async def test_without_issuer_is_a_configuration_error(
    row: IssuerProvider, caplog: pytest.LogCaptureFixture
) -> None:
    assert row.factory().issuer is None
    response = await sign_in_without_issuer(row.factory())
    check_configuration_error(response, caplog.text, row.id)


@pytest.mark.parametrize(
    ("claim", "verified"),
    [(True, True), ("true", True), (False, False), ("false", False), (None, False)],
)
def test_cognito_email_verified_as_boolean_or_string(claim: object, verified: bool) -> None:
    profile: dict[str, object] = {"sub": COGNITO_SUB, "email": "katherine@example.com"}
    if claim is not None:
        profile["email_verified"] = claim
    assert Cognito().email_verified(profile) is verified
