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
    "asgardeo": "asgardeo:Asgardeo",
    "atlassian": "atlassian:Atlassian",
    "auth0": "auth0:Auth0",
    "authentik": "authentik:Authentik",
    "azure-ad": "azure_ad:AzureAD",
    "azure-ad-b2c": "azure_ad_b2c:AzureADB2C",
    "azure-devops": "azure_devops:AzureDevOps",
    "bankid-no": "bankid_no:BankIDNorway",
    "battlenet": "battlenet:BattleNet",
    "beyondidentity": "beyondidentity:BeyondIdentity",
    "bitbucket": "bitbucket:Bitbucket",
    "box": "box:Box",
    "boxyhq-saml": "boxyhq_saml:BoxyHQSAML",
    "bungie": "bungie:Bungie",
    "click-up": "click_up:ClickUp",
    "cognito": "cognito:Cognito",
    "coinbase": "coinbase:Coinbase",
    "concept2": "concept2:Concept2",
    "descope": "descope:Descope",
    "discord": "discord:Discord",
    "dribbble": "dribbble:Dribbble",
    "dropbox": "dropbox:Dropbox",
    "duende-identity-server6": "duende_identity_server6:DuendeIdentityServer6",
    "eventbrite": "eventbrite:Eventbrite",
    "eveonline": "eveonline:EVEOnline",
    "facebook": "facebook:Facebook",
    "faceit": "faceit:FACEIT",
    "figma": "figma:Figma",
    "foursquare": "foursquare:Foursquare",
    "freshbooks": "freshbooks:FreshBooks",
    "frontegg": "frontegg:Frontegg",
    "fusionauth": "fusionauth:FusionAuth",
    "github": "github:GitHub",
    "gitlab": "gitlab:GitLab",
    "google": "google:Google",
    "hubspot": "hubspot:HubSpot",
    "huggingface": "huggingface:HuggingFace",
    "hydra": "hydra:OryHydra",
    "identity-server4": "identity_server4:IdentityServer4",
    "instagram": "instagram:Instagram",
    "kakao": "kakao:Kakao",
    "keycloak": "keycloak:Keycloak",
    "kinde": "kinde:Kinde",
    "line": "line:LINE",
    "linkedin": "linkedin:LinkedIn",
    "logto": "logto:Logto",
    "mailchimp": "mailchimp:Mailchimp",
    "mailru": "mailru:Mailru",
    "mastodon": "mastodon:Mastodon",
    "mattermost": "mattermost:Mattermost",
    "medium": "medium:Medium",
    "microsoft-entra-id": "microsoft_entra_id:MicrosoftEntraID",
    "naver": "naver:Naver",
    "netlify": "netlify:Netlify",
    "netsuite": "netsuite:NetSuite",
    "nextcloud": "nextcloud:Nextcloud",
    "notion": "notion:Notion",
    "okta": "okta:Okta",
    "onelogin": "onelogin:OneLogin",
    "osso": "osso:Osso",
    "osu": "osu:Osu",
    "passage": "passage:Passage",
    "patreon": "patreon:Patreon",
    "ping-id": "ping_id:PingId",
    "pinterest": "pinterest:Pinterest",
    "pipedrive": "pipedrive:Pipedrive",
    "reddit": "reddit:Reddit",
    "roblox": "roblox:Roblox",
    "salesforce": "salesforce:Salesforce",
    "simplelogin": "simplelogin:SimpleLogin",
    "slack": "slack:Slack",
    "spotify": "spotify:Spotify",
    "strava": "strava:Strava",
    "threads": "threads:Threads",
    "tiktok": "tiktok:TikTok",
    "todoist": "todoist:Todoist",
    "trakt": "trakt:Trakt",
    "twitch": "twitch:Twitch",
    "twitter": "twitter:Twitter",
    "united-effects": "united_effects:UnitedEffects",
    "vipps": "vipps:Vipps",
    "vk": "vk:VK",
    "webex": "webex:Webex",
    "wechat": "wechat:WeChat",
    "wikimedia": "wikimedia:Wikimedia",
    "wordpress": "wordpress:WordPress",
    "workos": "workos:WorkOS",
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
    chooses another method (e.g. ``client_secret_post``), ``AUTH_OIDC_NAME`` its label,
    and ``AUTH_OIDC_FEDERATED_LOGOUT=true`` turns on ``federated_logout``.
    """
    found = [built_in(pid) for pid in provider_ids() if env.get(provider_env_prefix(pid) + "ID")]
    if env.get("AUTH_OIDC_ID") and env.get("AUTH_OIDC_ISSUER"):
        method = env.get("AUTH_OIDC_CLIENT_AUTH") or (
            "client_secret_basic" if env.get("AUTH_OIDC_SECRET") else "none"
        )
        if method not in get_args(ClientAuthMethod):
            raise ValueError(f"AUTH_OIDC_CLIENT_AUTH must be one of {get_args(ClientAuthMethod)}")
        name = env.get("AUTH_OIDC_NAME") or "OpenID Connect"
        flag = env.get("AUTH_OIDC_FEDERATED_LOGOUT", "").strip().lower()
        federated = flag in ("1", "true", "yes", "on")  # authui.env's true words
        found.append(OIDC(id="oidc", name=name, client_auth=method, federated_logout=federated))
    return found
