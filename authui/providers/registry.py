"""Every built-in provider, by id: its module and factory, loaded when first asked for."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, get_args

from authui.env_names import provider_env_prefix
from authui.providers.base import Provider
from authui.providers.oauth import OIDC, ClientAuthMethod

BUILT_IN: Mapping[str, str] = {
    "42-school": "school42:School42",
    "apple": "apple:Apple",
    "atlassian": "atlassian:Atlassian",
    "auth0": "auth0:Auth0",
    "authentik": "authentik:Authentik",
    "azure-ad": "azure_ad:AzureAD",
    "bitbucket": "bitbucket:Bitbucket",
    "cognito": "cognito:Cognito",
    "concept2": "concept2:Concept2",
    "discord": "discord:Discord",
    "dribbble": "dribbble:Dribbble",
    "dropbox": "dropbox:Dropbox",
    "facebook": "facebook:Facebook",
    "figma": "figma:Figma",
    "freshbooks": "freshbooks:FreshBooks",
    "github": "github:GitHub",
    "gitlab": "gitlab:GitLab",
    "google": "google:Google",
    "keycloak": "keycloak:Keycloak",
    "linkedin": "linkedin:LinkedIn",
    "mailru": "mailru:Mailru",
    "microsoft-entra-id": "microsoft_entra_id:MicrosoftEntraID",
    "netlify": "netlify:Netlify",
    "notion": "notion:Notion",
    "okta": "okta:Okta",
    "osu": "osu:Osu",
    "patreon": "patreon:Patreon",
    "pinterest": "pinterest:Pinterest",
    "reddit": "reddit:Reddit",
    "slack": "slack:Slack",
    "spotify": "spotify:Spotify",
    "strava": "strava:Strava",
    "todoist": "todoist:Todoist",
    "trakt": "trakt:Trakt",
    "twitch": "twitch:Twitch",
    "twitter": "twitter:Twitter",
    "wikimedia": "wikimedia:Wikimedia",
    "yandex": "yandex:Yandex",
    "zitadel": "zitadel:Zitadel",
    "zoho": "zoho:Zoho",
    "zoom": "zoom:Zoom",
}
"""Built-in provider id → ``"<module in authui.providers>:<factory>"``."""


def provider_ids() -> list[str]:
    """The ids of every built-in provider, sorted."""
    return sorted(BUILT_IN)


def built_in(provider_id: str, **options: Any) -> Provider:
    """The built-in provider ``provider_id``, made with ``options``.

    Raises:
        KeyError: No built-in provider has this id.
    """
    module, factory = BUILT_IN[provider_id].split(":")
    made: Provider = getattr(importlib.import_module(f"authui.providers.{module}"), factory)(
        **options
    )
    return made


def providers_from_env(env: Mapping[str, str]) -> list[Provider]:
    """Every built-in provider whose ``AUTH_<ID>_ID`` is set, plus a generic OpenID
    provider ``oidc`` when ``AUTH_OIDC_ID`` and ``AUTH_OIDC_ISSUER`` are set.

    Client ids, secrets and issuers come from the environment when ``authui.set_env_defaults``
    runs, as for any provider. The ``oidc`` provider is a public client (``client_auth``
    ``"none"``, with PKCE) when ``AUTH_OIDC_SECRET`` is unset; ``AUTH_OIDC_CLIENT_AUTH``
    chooses another method (e.g. ``client_secret_post``), ``AUTH_OIDC_NAME`` its label.
    """
    found = [built_in(pid) for pid in provider_ids() if env.get(provider_env_prefix(pid) + "ID")]
    if env.get("AUTH_OIDC_ID") and env.get("AUTH_OIDC_ISSUER"):
        method = env.get("AUTH_OIDC_CLIENT_AUTH") or (
            "client_secret_basic" if env.get("AUTH_OIDC_SECRET") else "none"
        )
        if method not in get_args(ClientAuthMethod):
            raise ValueError(f"AUTH_OIDC_CLIENT_AUTH must be one of {get_args(ClientAuthMethod)}")
        name = env.get("AUTH_OIDC_NAME") or "OpenID Connect"
        found.append(OIDC(id="oidc", name=name, client_auth=method))
    return found
