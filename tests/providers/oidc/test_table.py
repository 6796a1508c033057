"""Every OpenID provider of this batch as §16.2 of the reference describes it: registry
entry, name, issuer, scope and other authorization params, checks, client auth, style;
whether the profile comes from the id_token or from userinfo, and whether
``AUTH_<ID>_ISSUER`` may replace a built-in issuer (a test environment, a sandbox)."""

from __future__ import annotations

from typing import Any

import pytest

from authui.providers.oauth import OAuthProvider
from authui.providers.registry import built_in
from authui.providers.twitch import CLAIMS

OIDC_SCOPE = {"scope": "openid profile email"}
ENTRA = "https://login.microsoftonline.com/common/v2.0"
ENTRA_PARAMS = {"scope": "openid profile email User.Read"}

TABLE: dict[str, tuple[str, str | None, dict[str, Any], tuple[str, ...], str, tuple[Any, Any]]] = {
    # id: (name, issuer, params, checks, client auth, (brand colour, text colour))
    "google": (
        "Google",
        "https://accounts.google.com",
        OIDC_SCOPE,
        ("pkce",),
        "basic",
        ("#1a73e8", None),
    ),
    "microsoft-entra-id": (
        "Microsoft Entra ID",
        ENTRA,
        ENTRA_PARAMS,
        ("pkce",),
        "basic",
        ("#0072c6", "#fff"),
    ),
    "azure-ad": (
        "Azure Active Directory",
        ENTRA,
        ENTRA_PARAMS,
        ("pkce",),
        "basic",
        ("#0072c6", "#fff"),
    ),
    "apple": (
        "Apple",
        "https://appleid.apple.com",
        {"scope": "name email", "response_mode": "form_post"},
        ("nonce", "state"),
        "post",
        ("#000", "#fff"),
    ),
    "linkedin": (
        "LinkedIn",
        "https://www.linkedin.com/oauth",
        OIDC_SCOPE,
        ("state",),
        "post",
        ("#069", "#fff"),
    ),
    "slack": ("Slack", "https://slack.com", OIDC_SCOPE, ("nonce",), "basic", ("#611f69", None)),
    "twitch": (
        "Twitch",
        "https://id.twitch.tv/oauth2",
        {"scope": "openid user:read:email", "claims": CLAIMS},
        ("pkce",),
        "post",
        ("#65459B", "#fff"),
    ),
    "auth0": ("Auth0", None, OIDC_SCOPE, ("pkce",), "basic", ("#EB5424", "#fff")),
    "okta": ("Okta", None, OIDC_SCOPE, ("pkce", "state"), "basic", ("#000", "#fff")),
    "keycloak": ("Keycloak", None, OIDC_SCOPE, ("pkce",), "basic", ("#428bca", None)),
    "cognito": ("Cognito", None, OIDC_SCOPE, ("pkce",), "basic", ("#C17B9E", None)),
    "zitadel": ("ZITADEL", None, OIDC_SCOPE, ("pkce",), "basic", (None, None)),
    "authentik": ("Authentik", None, OIDC_SCOPE, ("pkce",), "basic", (None, None)),
    "bankid-no": (
        "BankID Norge",
        "https://auth.bankid.no/auth/realms/prod",
        {"ui_locales": "no", "login_hint": "BIS", **OIDC_SCOPE},
        ("pkce", "state", "nonce"),
        "post",
        ("#39134c", "#fff"),
    ),
    # Descope's issuer is derived from the client id (the project id), unset without one.
    "descope": ("Descope", None, OIDC_SCOPE, ("pkce", "state"), "basic", ("#1C1C23", "#ffffff")),
    "huggingface": (
        "Hugging Face",
        "https://huggingface.co",
        OIDC_SCOPE,
        ("state", "pkce"),
        "basic",
        ("#FFD21E", "#000"),
    ),
    "line": (
        "LINE",
        "https://access.line.me",
        OIDC_SCOPE,
        ("state",),
        "basic",
        ("#00C300", "#fff"),
    ),
    "roblox": (
        "Roblox",
        "https://apis.roblox.com/oauth/",
        {"scope": "openid profile"},
        ("pkce", "state"),
        "basic",
        ("#5865F2", "#fff"),
    ),
    "salesforce": (
        "Salesforce",
        "https://login.salesforce.com",
        OIDC_SCOPE,
        ("pkce", "state", "nonce"),
        "basic",
        ("#00a1e0", None),
    ),
    # SimpleLogin ignores PKCE: state and nonce are added to Auth.js's PKCE.
    "simplelogin": (
        "SimpleLogin",
        "https://app.simplelogin.io",
        OIDC_SCOPE,
        ("pkce", "state", "nonce"),
        "basic",
        ("#e3156a", None),
    ),
    "vipps": (
        "Vipps",
        "https://api.vipps.no/access-management-1.0/access/",
        {"scope": "openid name email"},
        ("pkce", "state", "nonce"),
        "basic",
        ("#f05c18", None),
    ),
}

PROFILE_FROM_USERINFO = {"salesforce", "vipps"}
"""Providers whose profile is the userinfo answer (``id_token=False``)."""

ISSUER_FROM_ENV = {
    "azure-ad",
    "bankid-no",
    "microsoft-entra-id",
    "salesforce",
    "simplelogin",
    "vipps",
}
"""Built-in issuers ``AUTH_<ID>_ISSUER`` replaces (``default_issuer``): Microsoft's
multi-tenant ``common``, test environments, sandboxes, self-hosted servers. Descope's,
derived from a given client id, is one too."""


@pytest.mark.parametrize("provider_id", sorted(TABLE))
def test_provider_facts(provider_id: str) -> None:
    name, issuer, params, checks, client_auth, (brand, text) = TABLE[provider_id]
    provider = built_in(provider_id)
    assert isinstance(provider, OAuthProvider)
    assert (provider.id, provider.name, provider.type) == (provider_id, name, "oidc")
    assert provider.issuer == issuer
    assert provider.authorization == provider.authorization.__class__(params=params)
    assert provider.token.url is None
    assert provider.userinfo.url is None
    assert provider.checks == checks
    assert provider.client_auth == f"client_secret_{client_auth}"
    assert provider.id_token is (provider_id not in PROFILE_FROM_USERINFO)
    assert provider.default_issuer is (provider_id in ISSUER_FROM_ENV)
    style = provider.style
    assert (style.brand_color if style else None, style.text if style else None) == (brand, text)


@pytest.mark.parametrize("provider_id", sorted(TABLE))
def test_overrides_merge_params_and_replace_the_rest(provider_id: str) -> None:
    provider = built_in(
        provider_id,
        issuer="https://id.example.com",
        authorization={"params": {"prompt": "login"}},
        checks=["pkce", "state"],
    )
    assert isinstance(provider, OAuthProvider)
    assert provider.issuer == "https://id.example.com"
    assert provider.authorization.params == {**TABLE[provider_id][2], "prompt": "login"}
    assert provider.checks == ("pkce", "state")
