"""The OpenID providers whose issuer comes from the user (``issuer=`` or
``AUTH_<ID>_ISSUER``): Asgardeo, Auth0, authentik, Azure AD B2C, Battle.net, Beyond
Identity, Cognito, Duende IdentityServer, Frontegg, FusionAuth, Ory Hydra,
IdentityServer4, Keycloak, Kinde, Logto, Okta, OneLogin, Passage, Ping Identity, United
Effects and ZITADEL.

One row per provider holds its facts; the same tests run for each: a sign-in through a
stand-in answering the recorded discovery document, id_token claims and token response;
the issuer taken from the environment; the refusal of a configuration without an issuer;
keyword overrides merged over the defaults; and, where a refusal is recorded, a refused
code ending on the error page. Each row's quirk is a fact of the row (see its comment);
quirks that need more than a row have small tests of their own at the end (Azure AD B2C's
in ``test_azure_ad_b2c.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from authui.providers.asgardeo import Asgardeo
from authui.providers.auth0 import Auth0
from authui.providers.authentik import Authentik
from authui.providers.azure_ad_b2c import AzureADB2C
from authui.providers.base import ProviderStyle
from authui.providers.battlenet import BattleNet, battlenet_profile
from authui.providers.beyondidentity import BeyondIdentity
from authui.providers.cognito import Cognito
from authui.providers.duende_identity_server6 import DuendeIdentityServer6
from authui.providers.frontegg import Frontegg, frontegg_profile
from authui.providers.fusionauth import FusionAuth, fusionauth_profile
from authui.providers.hydra import OryHydra
from authui.providers.identity_server4 import IdentityServer4
from authui.providers.keycloak import Keycloak
from authui.providers.kinde import Kinde
from authui.providers.logto import Logto
from authui.providers.oauth import OAuthProvider
from authui.providers.okta import Okta
from authui.providers.onelogin import OneLogin
from authui.providers.passage import Passage
from authui.providers.ping_id import PingId
from authui.providers.united_effects import UnitedEffects
from authui.providers.zitadel import Zitadel
from tests.oauth.standin import CLIENT_ID, canned, sign_in_through
from tests.providers.oauth2.plain_oauth import check_sign_in_refused
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
        name: The provider's name, on its button.
        style: The button's brand and text colours.
        params: The authorization parameters besides ``response_type``, ``client_id``,
            ``redirect_uri`` and the checks' values.
        checks: The provider's checks.
        given_issuer: The ``issuer=`` the user passes, when it differs from ``issuer``.
        profile: Claims the signed-in profile holds, exactly.
        account: Fields the account keeps, exactly.
        not_in_account: Fields the account must not have.
        authorization_endpoint: The authorization URL (without its query), when it lives
            elsewhere than the issuer.
        refused: The HTTP status of the recorded ``token_error.json``, when there is one.
    """

    id: str
    factory: Callable[..., OAuthProvider]
    issuer: str
    sub: str
    user: Mapping[str, str | None]
    email_verified: bool
    name: str
    style: tuple[str | None, str | None]
    params: Mapping[str, str] = field(default_factory=lambda: OIDC_SCOPE)
    checks: tuple[str, ...] = ("pkce",)
    given_issuer: str | None = None
    profile: Mapping[str, Any] = field(default_factory=dict)
    account: Mapping[str, Any] = field(default_factory=dict)
    not_in_account: tuple[str, ...] = ()
    authorization_endpoint: str | None = None
    refused: int | None = None


AUTH0_DOMAIN = "https://dev-abc123.us.auth0.com"
COGNITO_ISSUER = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf123"
COGNITO_SUB = "a1b2c3d4-5e6f-7081-92a3-b4c5d6e7f809"
ASGARDEO_ISSUER = "https://api.asgardeo.io/t/acmecorp/oauth2/token"
B2C_ISSUER = (
    "https://contoso.b2clogin.com/tfp/775527ff-9a37-4307-8b3d-cc311f58d925/b2c_1_signupsignin/v2.0/"
)
BEYONDIDENTITY_ISSUER = (
    "https://auth-us.beyondidentity.com/v1/tenants/00012a3b4c5d6e7f/realms/8f5b7c2e1d4a9036"
    "/applications/3c9e1a7b-52f4-4d8e-b6a1-0f7d2c9e4b13"
)
DUENDE_ISSUER = "https://demo.duendesoftware.com"
PING_ISSUER = "https://auth.pingone.com/0a7af83d-4ed9-4510-93cd-506fe835f69a/as"
UE_ISSUER = "https://auth.unitedeffects.com/YQpbQV5dbW-224dCovz-3"

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
        name="Auth0",
        style=("#EB5424", "#fff"),
    ),
    # authentik: the issuer with its trailing slash, ``email_verified`` false by default.
    IssuerProvider(
        id="authentik",
        factory=Authentik,
        issuer="https://auth.example.com/application/o/webapp/",
        sub="3e8f2a1c7b6d5e4f9a0b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f",
        user={"name": "Hedy Lamarr", "email": "hedy@example.com"},
        email_verified=False,
        name="Authentik",
        style=(None, None),
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
        name="Cognito",
        style=("#C17B9E", None),
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
        name="Keycloak",
        style=("#428bca", None),
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
        name="Okta",
        style=("#000", "#fff"),
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
        name="ZITADEL",
        style=(None, None),
        profile={"aud": [CLIENT_ID, "263914782003619845"], "azp": CLIENT_ID},
        not_in_account=("refresh_token",),
    ),
    # Asgardeo: the issuer is the organisation's token endpoint; the id_token has
    # ``given_name``/``family_name`` but no ``name``, so the user has none.
    IssuerProvider(
        id="asgardeo",
        factory=Asgardeo,
        issuer=ASGARDEO_ISSUER,
        sub="2b7e5c1d-9f3a-4e8b-a6c0-1d2e3f4a5b6c",
        user={"email": "ada@example.com", "image": "https://images.example.com/users/ada.png"},
        email_verified=False,
        name="Asgardeo",
        style=("#000", "#fff"),
        profile={"given_name": "Ada", "org_name": "acmecorp"},
        authorization_endpoint="https://api.asgardeo.io/t/acmecorp/oauth2/authorize",
        refused=400,
    ),
    # Azure AD B2C: the user flow's ``tfp`` issuer; the email is ``emails[0]``; no access
    # token in the answer (the id_token stands in, see test_azure_ad_b2c.py), its string
    # ``id_token_expires_in`` the expiry.
    IssuerProvider(
        id="azure-ad-b2c",
        factory=AzureADB2C,
        issuer=B2C_ISSUER,
        sub="5f8c2a3e-7b1d-4e9f-a6c0-2d4b6e8f0a1c",
        user={"name": "Grace Hopper", "email": "grace.hopper@example.com"},
        email_verified=False,
        name="Azure AD B2C",
        style=("#0072c6", "#fff"),
        profile={"tfp": "B2C_1_signupsignin", "emails": ["grace.hopper@example.com"]},
        account={"expires_in": 3600, "scope": "openid"},
        not_in_account=("refresh_token",),
        refused=400,
    ),
    # Battle.net: the global issuer; the name is the BattleTag, no email; the token
    # answer repeats ``sub`` and grants only ``openid``.
    IssuerProvider(
        id="battlenet",
        factory=BattleNet,
        issuer="https://oauth.battle.net",
        sub="104847213",
        user={"name": "Leeroy#1337", "email": None},
        email_verified=False,
        name="Battle.net",
        style=("#148eff", "#fff"),
        account={"sub": "104847213", "scope": "openid", "expires_in": 86399},
        refused=400,
    ),
    # Beyond Identity: the issuer is an application of a realm; ``preferred_username``
    # kept on the user, no image.
    IssuerProvider(
        id="beyondidentity",
        factory=BeyondIdentity,
        issuer=BEYONDIDENTITY_ISSUER,
        sub="a7c3e9f1b5d2",
        user={
            "name": "Barbara Liskov",
            "email": "barbara.liskov@example.com",
            "preferred_username": "bliskov",
        },
        email_verified=False,
        name="Beyond Identity",
        style=("#5077c5", "#fff"),
        refused=400,
    ),
    # Duende IdentityServer: a thin id_token (an access token came with it), so the
    # user is only its id; userinfo has the rest (see the test at the end).
    IssuerProvider(
        id="duende-identity-server6",
        factory=DuendeIdentityServer6,
        issuer=DUENDE_ISSUER,
        sub="88421113",
        user={"email": None},
        email_verified=False,
        name="DuendeIdentityServer6",
        style=(None, None),
        profile={"idp": "local", "amr": ["pwd"]},
        refused=400,
    ),
    # Frontegg: the picture is ``profilePictureUrl``; a refresh token without asking.
    IssuerProvider(
        id="frontegg",
        factory=Frontegg,
        issuer="https://app-x4gr8g28fxr7.frontegg.com",
        sub="d1e2f3a4-b5c6-4d7e-8f9a-0b1c2d3e4f5a",
        user={
            "name": "Grace Kelly",
            "email": "grace.kelly@example.com",
            "image": "https://www.gravatar.com/avatar/1f6b2a9c4e7d3b8a5c0e2f4d6b8a1c3e"
            "?d=https://ui-avatars.com/api/fe/128/random",
        },
        email_verified=True,
        name="Frontegg",
        style=(None, None),
        account={"refresh_token": "3f8c1a6e-9b2d-4e7f-a5c0-1d3b5f7a9c2e"},
        refused=400,
    ),
    # FusionAuth: ``offline_access`` asked for, PKCE and state; no ``name`` claim, so the
    # name is the given and family names.
    IssuerProvider(
        id="fusionauth",
        factory=FusionAuth,
        issuer="https://auth.example.com",
        sub="2a4c6e8f-0b1d-4f3a-8c5e-7a9b1c3d5e7f",
        user={"name": "Richard Hendricks", "email": "richard@example.com"},
        email_verified=True,
        name="FusionAuth",
        style=(None, None),
        params={"scope": "openid offline_access email profile"},
        checks=("pkce", "state"),
        account={"refresh_token": "ze9fi6Y9sMSf3yWp3aaO2w7AMav2MFdiMtZa7XUoK3lPnR7PEb9NXQ"},
        authorization_endpoint="https://auth.example.com/oauth2/authorize",
        refused=400,
    ),
    # Ory Hydra (id ``hydra``): an Ory Network project; ``aud`` a list; the consent
    # session gave an email but no name.
    IssuerProvider(
        id="hydra",
        factory=OryHydra,
        issuer="https://festive-lamport-8i6k2vq4.projects.oryapis.com",
        sub="9f425a8d-7a4b-4f1d-8b2b-1a2c3d4e5f60",
        user={"email": "margaret.hamilton@example.com"},
        email_verified=True,
        name="Hydra",
        style=("#fff", "#0F172A"),
        profile={"aud": [CLIENT_ID]},
        not_in_account=("refresh_token",),
        refused=400,
    ),
    # IdentityServer4: a client with ``AlwaysIncludeUserClaimsInIdToken``; the email's
    # capitals are lowered for the user.
    IssuerProvider(
        id="identity-server4",
        factory=IdentityServer4,
        issuer="https://identity.example.com",
        sub="818727",
        user={"name": "Alice Smith", "email": "alicesmith@email.com"},
        email_verified=True,
        name="IdentityServer4",
        style=(None, None),
        profile={"email": "AliceSmith@email.com"},
        refused=400,
    ),
    # Kinde: state and PKCE (in that order); ``sub`` starts with ``kp_``; ``aud`` a list.
    IssuerProvider(
        id="kinde",
        factory=Kinde,
        issuer="https://acme.kinde.com",
        sub="kp_5ce4f1d8a3b9460c8e72f1a0b6d3c9e2",
        user={
            "name": "Ken Thompson",
            "email": "ken.thompson@example.com",
            "image": "https://lh3.googleusercontent.com/a/ACg8ocK3pZ9vT1xY4uW7qR2sE5dF8gH0jL3nM6bV9cX=s96-c",
        },
        email_verified=False,
        name="Kinde",
        style=("#fff", "#0F0F0F"),
        checks=("state", "pkce"),
        profile={"org_codes": ["org_8d7c1b2a3e4"]},
        refused=400,
    ),
    # Logto: ``offline_access`` first in the scope; ``name`` null, so the name is the
    # Logto username.
    IssuerProvider(
        id="logto",
        factory=Logto,
        issuer="https://k9x2m4.logto.app/oidc",
        sub="7tzl1f3kq2xp",
        user={
            "name": "donald_knuth",
            "email": "knuth@example.com",
            "image": "https://avatars.githubusercontent.com/u/5821934",
        },
        email_verified=True,
        name="Logto",
        style=(None, None),
        params={"scope": "offline_access openid email profile"},
        profile={"name": None, "username": "donald_knuth"},
        account={"refresh_token": "Zr8KpV3nT6wX9yB2cE5fH8jL1mQ4sU7vA0dG3iN6oR9"},
        refused=400,
    ),
    # OneLogin: the issuer ends in ``/oidc/2``; ``sub`` the numeric user id as a string.
    IssuerProvider(
        id="onelogin",
        factory=OneLogin,
        issuer="https://acme.onelogin.com/oidc/2",
        sub="104857321",
        user={"name": "Tim Berners-Lee", "email": "tim@example.com"},
        email_verified=False,
        name="OneLogin",
        style=(None, None),
        profile={"preferred_username": "tim@example.com"},
        refused=400,
    ),
    # Passage: no name, no picture; ``aud`` a list, ``client_id`` a claim.
    IssuerProvider(
        id="passage",
        factory=Passage,
        issuer="https://hc8zyyxdazwcwsf5zbnbsdkh.withpassage.com",
        sub="5Bm2rU8kCqvZxJtHjKp3a1",
        user={"email": "radia.perlman@example.com"},
        email_verified=True,
        name="Passage",
        style=("#3d53f6", None),
        profile={"client_id": CLIENT_ID, "phone_number_verified": False},
        account={"scope": "openid email"},
        refused=400,
    ),
    # Ping Identity: a PingOne environment; the id_token names environment and region.
    IssuerProvider(
        id="ping-id",
        factory=PingId,
        issuer=PING_ISSUER,
        sub="b3f1c9a2-6d4e-4f8a-9b7c-2e1d0f3a5c7b",
        user={
            "name": "Hedy Lamarr",
            "email": "hedy.lamarr@example.com",
            "image": "https://assets.pingone.com/ux/end-user/avatars/hedy.png",
        },
        email_verified=False,
        name="Ping Identity",
        style=(None, None),
        profile={"env": "0a7af83d-4ed9-4510-93cd-506fe835f69a", "p1.region": "NA"},
        refused=400,
    ),
    # United Effects: the scope in its own order and the issuer as ``resource``; no name.
    IssuerProvider(
        id="united-effects",
        factory=UnitedEffects,
        issuer=UE_ISSUER,
        sub="4b8d9b1e-5f6a-4c3d-9e2f-1a0b2c3d4e5f",
        user={"email": "frances.allen@example.com"},
        email_verified=True,
        name="United Effects",
        style=(None, None),
        params={"scope": "openid email profile", "resource": UE_ISSUER},
        authorization_endpoint=f"{UE_ISSUER}/auth",
        refused=400,
    ),
]

each_provider = pytest.mark.parametrize("row", PROVIDERS, ids=[row.id for row in PROVIDERS])
REFUSING = [row for row in PROVIDERS if row.refused is not None]


@each_provider
async def test_sign_in(row: IssuerProvider) -> None:
    provider = row.factory(issuer=row.given_issuer or row.issuer)
    standin = canned_standin(row.id, row.issuer)
    outcome = await sign_in_through(provider, standin)
    check_authorization(outcome, standin, provider, row.params)
    check_token_request(outcome, standin, provider)
    account = check_account(outcome, provider, row.sub)
    assert mapped(outcome) == row.user
    assert outcome.signed_in is not None
    profile = outcome.signed_in["profile"]
    assert (provider.id, provider.name, provider.type) == (row.id, row.name, "oidc")
    assert provider.checks == row.checks
    assert provider.client_auth == "client_secret_basic"
    style = provider.style
    assert (style.brand_color if style else None, style.text if style else None) == row.style
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


@pytest.mark.parametrize("row", REFUSING, ids=[row.id for row in REFUSING])
async def test_a_refused_code_ends_on_the_error_page(
    row: IssuerProvider, caplog: pytest.LogCaptureFixture
) -> None:
    assert row.refused is not None
    error = canned(f"{row.id}/token_error.json")
    token_url = canned(f"{row.id}/discovery.json")["token_endpoint"]
    refused = httpx.Response(row.refused, json=error)
    standin = canned_standin(row.id, row.issuer, routes={f"POST {token_url}": refused})
    provider = row.factory(issuer=row.given_issuer or row.issuer)
    await check_sign_in_refused(
        provider, standin, caplog, f"answered {row.refused}", error["error"]
    )
    last = standin.requests[-1]  # nothing asked after the refusal: no keys, no userinfo
    assert (last.method, str(last.url)) == ("POST", token_url)
    assert standin.unexpected == []


@each_provider
def test_keyword_overrides_merge(row: IssuerProvider) -> None:
    default = row.factory(issuer=row.given_issuer or row.issuer)
    provider = row.factory(
        issuer=row.given_issuer or row.issuer,
        authorization={"params": {"prompt": "login"}},
        checks=["pkce", "state", "nonce"],
        style=ProviderStyle(brand_color="#123456"),
    )
    assert dict(provider.authorization.params) == {**row.params, "prompt": "login"}
    assert provider.checks == ("pkce", "state", "nonce")
    assert provider.style is not None
    assert (provider.style.brand_color, provider.style.text) == ("#123456", row.style[1])
    assert (provider.profile, provider.token, provider.issuer) == (
        default.profile,
        default.token,
        default.issuer,
    )


async def test_duende_thin_id_token_reads_the_profile_from_userinfo() -> None:
    userinfo = canned("duende-identity-server6/userinfo.json")
    provider = DuendeIdentityServer6(issuer=DUENDE_ISSUER, id_token=False)
    standin = canned_standin("duende-identity-server6", DUENDE_ISSUER, userinfo=userinfo)
    outcome = await sign_in_through(provider, standin)
    assert mapped(outcome) == {"name": "Bob Smith", "email": "bobsmith@email.com"}
    assert outcome.account["providerAccountId"] == "88421113"
    sent = standin.sent("GET", f"{DUENDE_ISSUER}/connect/userinfo")
    access_token = canned("duende-identity-server6/token.json")["access_token"]
    assert sent.headers["authorization"] == f"Bearer {access_token}"
    assert outcome.signed_in is not None
    assert provider.email_verified(outcome.signed_in["profile"]) is True


async def test_fusionauth_tenant_id_goes_to_the_authorization_request() -> None:
    provider = FusionAuth(issuer="https://auth.example.com", tenant_id="b1c2d3e4")
    standin = canned_standin("fusionauth", "https://auth.example.com")
    outcome = await sign_in_through(provider, standin)
    params = {"scope": "openid offline_access email profile", "tenantId": "b1c2d3e4"}
    check_authorization(outcome, standin, provider, params)
    assert FusionAuth().authorization.params == {"scope": params["scope"]}


@pytest.mark.parametrize(
    ("claims", "name"),
    [
        pytest.param({"name": "Richard H.", "preferred_username": "rh"}, "Richard H.", id="name"),
        pytest.param({"preferred_username": "rh", "given_name": "Richard"}, "rh", id="username"),
        pytest.param(
            {"given_name": "Richard", "middle_name": " ", "family_name": "Hendricks"},
            "Richard Hendricks",
            id="name parts",
        ),
        pytest.param({"given_name": "Richard"}, "Richard", id="given name only"),
        pytest.param({}, None, id="nothing"),
    ],
)
def test_fusionauth_name(claims: dict[str, str], name: str | None) -> None:
    assert fusionauth_profile({"sub": "u1", **claims}, {})["name"] == name


def test_battlenet_name_from_id_token_or_userinfo() -> None:
    from_id_token = battlenet_profile({"sub": "1", "battle_tag": "Leeroy#1337"}, {})
    from_userinfo = battlenet_profile({"sub": "1", "id": 1, "battletag": "Leeroy#1337"}, {})
    assert from_id_token == from_userinfo
    assert from_userinfo == {"id": "1", "name": "Leeroy#1337", "email": None, "image": None}


@pytest.mark.parametrize(
    ("claims", "image"),
    [
        pytest.param({"picture": "https://p/1.png"}, "https://p/1.png", id="picture"),
        pytest.param(
            {"picture": "https://p/1.png", "profilePictureUrl": "https://p/2.png"},
            "https://p/1.png",
            id="picture first",
        ),
        pytest.param({"profilePictureUrl": "https://p/2.png"}, "https://p/2.png", id="frontegg's"),
        pytest.param({"profilePictureUrl": ""}, None, id="empty"),
    ],
)
def test_frontegg_image(claims: dict[str, str], image: str | None) -> None:
    assert frontegg_profile({"sub": "u1", **claims}, {}).get("image") == image


def test_united_effects_resource_follows_the_given_issuer() -> None:
    assert UnitedEffects().authorization.params == {"scope": "openid email profile"}
    from_env = issuer_from_env(UnitedEffects(), UE_ISSUER)
    assert "resource" not in from_env.authorization.params
    given = UnitedEffects(issuer=UE_ISSUER, authorization={"params": {"resource": "https://api"}})
    assert given.authorization.params == {
        "scope": "openid email profile",
        "resource": "https://api",
    }
