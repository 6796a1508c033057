"""Azure DevOps: OAuth 2 sign-in with an Azure DevOps Services account, through an Azure
DevOps OAuth app.

Microsoft stopped registering new Azure DevOps OAuth apps in April 2025 and retires them
in 2026; for a new app use Microsoft Entra ID (``authui.providers.microsoft_entra_id``).
An existing app (app.vsaex.visualstudio.com) needs ``<origin>/auth/callback/azure-devops``
as its "Authorization callback URL" (HTTPS, also for ``https://localhost``) and at
least the "User profile (read)" scope. ``AUTH_AZURE_DEVOPS_ID`` holds its App ID and
``AUTH_AZURE_DEVOPS_SECRET`` its *Client Secret* (not the App Secret).

Quirks:

- The authorization request asks for ``response_type=Assertion`` and the scopes
  registered with the app (``vso.profile`` by default), protected by ``state``.
- The token request is not OAuth 2's: the form carries the client secret as
  ``client_assertion`` (``client_assertion_type`` JWT bearer), the code as
  ``assertion``, ``grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`` and the
  ``redirect_uri``. The provider's ``custom_fetch`` rewrites the standard request into
  this one (in front of your own ``custom_fetch``, if you give one). The answer calls
  the token type ``jwt-bearer``, which is recorded as ``bearer`` (it is sent as a Bearer
  token); ``expires_in`` is a string. Errors come as ``{"Error", "ErrorDescription"}``.
- The profile is ``GET /_apis/profile/profiles/me`` with the avatar among its core
  attributes; the image is that avatar as a ``data:`` URL (a few kilobytes, kept in the
  session). Azure DevOps does not say whether the email is verified.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import httpx

from authui.http_client import shared_client
from authui.providers.base import ProviderStyle
from authui.providers.oauth import (
    CustomFetch,
    Endpoint,
    OAuthProvider,
    Profile,
    TokenSet,
    with_overrides,
)

SITE_URL = "https://app.vssps.visualstudio.com"
PROFILE_URL = (
    f"{SITE_URL}/_apis/profile/profiles/me?details=true&coreAttributes=Avatar&api-version=6.0"
)
JWT_BEARER_ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
_IMAGE_TYPES = {"iVBORw0KGgo": "image/png", "/9j/": "image/jpeg", "R0lGOD": "image/gif"}
"""The base64 start of PNG, JPEG and GIF files, to name the avatar's type."""


class AssertionExchange:
    """A ``custom_fetch`` that sends the standard authorization-code token request the way
    Azure DevOps takes it, and its error answer the standard way; every other request
    passes through unchanged.

    Attributes:
        send: Where requests go: the ``custom_fetch`` given to the provider, else the
            shared HTTP client.
    """

    def __init__(self, send: CustomFetch | None = None):
        self.send = send

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        form = _form(request)
        if form.get("grant_type") != "authorization_code":
            return await self._send(request)
        exchange = {
            "client_assertion_type": JWT_BEARER_ASSERTION,
            "client_assertion": form.get("client_secret", ""),
            "grant_type": JWT_BEARER_GRANT,
            "assertion": form.get("code", ""),
            "redirect_uri": form.get("redirect_uri", ""),
        }
        headers = {"Accept": "application/json"}
        response = await self._send(
            httpx.Request("POST", request.url, headers=headers, data=exchange)
        )
        return await _standard_error(response)

    async def _send(self, request: httpx.Request) -> httpx.Response:
        if self.send is not None:
            return await self.send(request)
        return await shared_client().send(request)


def _form(request: httpx.Request) -> dict[str, str]:
    if request.method != "POST" or "form-urlencoded" not in request.headers.get("content-type", ""):
        return {}
    return dict(parse_qsl(request.content.decode()))


async def _standard_error(response: httpx.Response) -> httpx.Response:
    """An error answer ``{"Error", "ErrorDescription"}`` as ``{"error", "error_description"}``,
    so the log names the cause."""
    if response.is_success:
        return response
    await response.aread()
    try:
        body = response.json()
    except ValueError:
        return response
    if not isinstance(body, dict) or not isinstance(body.get("Error"), str):
        return response
    standard = {"error": body["Error"], "error_description": body.get("ErrorDescription")}
    return httpx.Response(
        response.status_code,
        headers={"Content-Type": "application/json"},
        content=json.dumps(standard).encode(),
        request=response.request,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class AzureDevOpsProvider(OAuthProvider):
    """An ``OAuthProvider`` whose ``custom_fetch`` is always an ``AssertionExchange``, in
    front of whatever ``custom_fetch`` it is given (also by ``dataclasses.replace``)."""

    def __post_init__(self) -> None:
        if not isinstance(self.custom_fetch, AssertionExchange):
            object.__setattr__(self, "custom_fetch", AssertionExchange(self.custom_fetch))


def AzureDevOps(**options: Any) -> OAuthProvider:
    """Sign in with Azure DevOps. Keyword arguments override any ``OAuthProvider``
    setting, e.g. ``authorization={"params": {"scope": "vso.profile vso.code"}}`` (the
    scopes registered with the app)."""
    defaults: dict[str, Any] = {
        "id": "azure-devops",
        "name": "Azure DevOps",
        "type": "oauth",
        "authorization": Endpoint(
            url=f"{SITE_URL}/oauth2/authorize",
            params={"response_type": "Assertion", "scope": "vso.profile"},
        ),
        "token": Endpoint(url=f"{SITE_URL}/oauth2/token", conform=_conform),
        "userinfo": Endpoint(url=PROFILE_URL),
        "checks": ("state",),
        "client_auth": "client_secret_post",
        "profile": _profile,
        "style": ProviderStyle(brand_color="#0078D4", text="#fff"),
    }
    return with_overrides(defaults, options, AzureDevOpsProvider)


def _conform(body: dict[str, Any]) -> dict[str, Any]:
    """Azure DevOps names its bearer token's type ``jwt-bearer``."""
    if str(body.get("token_type", "")).lower() == "jwt-bearer":
        return {**body, "token_type": "bearer"}
    return body


def avatar_url(profile: Profile) -> str | None:
    """The avatar of the profile's core attributes as a ``data:`` URL, or ``None``."""
    attributes = profile.get("coreAttributes") or {}
    avatar = (attributes.get("Avatar") or {}).get("value") or {}
    data = avatar.get("value") if isinstance(avatar, dict) else None
    if not isinstance(data, str) or not data:
        return None
    try:
        base64.b64decode(data, validate=True)
    except ValueError:
        return None
    kind = next((t for start, t in _IMAGE_TYPES.items() if data.startswith(start)), "image/jpeg")
    return f"data:{kind};base64,{data}"


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    return {
        "id": str(profile["id"]),
        "name": profile.get("displayName") or None,
        "email": profile.get("emailAddress") or None,
        "image": avatar_url(profile),
    }
