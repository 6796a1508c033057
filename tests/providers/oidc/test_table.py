"""Every OpenID provider of this batch as §16.2 of the reference describes it: registry
entry, name, issuer, scope and other authorization params, checks, client auth, style."""

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
}


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
    assert provider.id_token is True
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
