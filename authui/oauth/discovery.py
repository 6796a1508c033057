"""OpenID Connect discovery and JWKS, cached for a bounded time by each resolved
configuration (``Options.discovery``)."""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass
from typing import Any

import httpx
from joserfc.jwk import KeySet

from authui.oauth.http import fetch, fetch_json
from authui.providers.oauth import OAuthProvider

CACHE_SECONDS = 60 * 60
"""How long a discovery document or key set is reused before it is fetched again."""


class DiscoveryError(Exception):
    """The discovery document is missing, malformed, or for another issuer."""


@dataclass(frozen=True, slots=True)
class Endpoints:
    """Where a provider's endpoints are, configured or discovered."""

    issuer: str | None
    authorization: str | None
    token: str | None
    userinfo: str | None
    jwks_uri: str | None


def discovery_url(issuer: str) -> str:
    """``<issuer>/.well-known/openid-configuration``, without a doubled slash."""
    return issuer.rstrip("/") + "/.well-known/openid-configuration"


def _same_issuer(found: Any, configured: str) -> bool:
    if not isinstance(found, str):
        return False
    if "{tenantid}" in found:  # Microsoft's multi-tenant issuers; checked per id_token
        return True
    return found.rstrip("/") == configured.rstrip("/")


class DiscoveryCache:
    """Discovery documents and key sets, kept ``CACHE_SECONDS``: one per resolved
    configuration, with one store per ``custom_fetch`` (a stand-in may answer differently
    than the service)."""

    def __init__(self) -> None:
        self._default: dict[str, tuple[float, Any]] = {}
        self._by_fetch: weakref.WeakKeyDictionary[Any, dict[str, tuple[float, Any]]] = (
            weakref.WeakKeyDictionary()
        )

    def _store(self, provider: OAuthProvider) -> dict[str, tuple[float, Any]]:
        if provider.custom_fetch is None:
            return self._default
        return self._by_fetch.setdefault(provider.custom_fetch, {})

    async def discover(self, provider: OAuthProvider) -> dict[str, Any]:
        """The issuer's discovery document (cached).

        Raises:
            DiscoveryError: No issuer, a failed request, or the document names another issuer.
        """
        issuer = provider.issuer
        if not issuer:
            raise DiscoveryError(
                f"Provider {provider.id!r} has no issuer to discover its endpoints from: set "
                f"issuer= or AUTH_{provider.id.upper().replace('-', '_')}_ISSUER"
            )
        store = self._store(provider)
        url = discovery_url(issuer)
        cached = store.get(url)
        if cached is not None and cached[0] > time.monotonic():
            document: dict[str, Any] = cached[1]
            return document
        try:
            document = await fetch_json(provider, httpx.Request("GET", url), "discovery")
        except (httpx.HTTPError, OSError) as exc:
            raise DiscoveryError(f"Discovery at {url} failed: {exc!r}") from exc
        except Exception as exc:
            raise DiscoveryError(str(exc)) from exc
        found = document.get("issuer")
        if not _same_issuer(found, issuer):
            raise DiscoveryError(
                f"Discovery at {url} names the issuer {found!r}, not the configured {issuer!r}"
            )
        store[url] = (time.monotonic() + CACHE_SECONDS, document)
        return document

    async def endpoints(self, provider: OAuthProvider, *, need: tuple[str, ...]) -> Endpoints:
        """The provider's endpoints, discovered where the configuration leaves them unset.

        Raises:
            DiscoveryError: Discovery was needed and failed, or did not give what is needed.
        """
        configured = Endpoints(
            issuer=provider.issuer,
            authorization=provider.authorization.url,
            token=provider.token.url,
            userinfo=provider.userinfo.url,
            jwks_uri=None,
        )
        wanted = [name for name in need if getattr(configured, name) is None]
        if not provider.issuer or (not wanted and provider.type == "oauth"):
            return configured
        document = await self.discover(provider)
        keys = {
            "authorization": "authorization_endpoint",
            "token": "token_endpoint",
            "userinfo": "userinfo_endpoint",
            "jwks_uri": "jwks_uri",
        }
        found = {name: getattr(configured, name) or document.get(key) for name, key in keys.items()}
        missing = [keys[name] for name in wanted if not isinstance(found[name], str)]
        if missing:
            raise DiscoveryError(f"The discovery document of {provider.issuer} lacks {missing}")
        issuer = document.get("issuer") if isinstance(document.get("issuer"), str) else None
        return Endpoints(issuer=issuer or provider.issuer, **found)

    async def key_set(
        self, provider: OAuthProvider, jwks_uri: str, *, refresh: bool = False
    ) -> KeySet:
        """The provider's signing keys (cached; ``refresh`` fetches them again, for a key
        the cached set does not have yet after a rotation).

        Raises:
            DiscoveryError: The key set cannot be fetched or read.
        """
        store = self._store(provider)
        cached = store.get(jwks_uri)
        if not refresh and cached is not None and cached[0] > time.monotonic():
            keys: KeySet = cached[1]
            return keys
        try:
            response = await fetch(provider, httpx.Request("GET", jwks_uri))
            response.raise_for_status()
            keys = KeySet.import_key_set(response.json())
        except Exception as exc:
            raise DiscoveryError(f"The key set at {jwks_uri} cannot be read: {exc!r}") from exc
        store[jwks_uri] = (time.monotonic() + CACHE_SECONDS, keys)
        return keys
