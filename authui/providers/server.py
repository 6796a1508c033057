"""Providers of software each organisation runs on its own server (Mastodon, Mattermost,
Nextcloud, Osso, BoxyHQ SAML Jackson): the server's URL is the ``issuer`` and the
endpoints are paths under it, filled in whenever the issuer becomes known."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerProvider(OAuthProvider):
    """An OAuth provider of software each organisation runs on its own server (Mastodon,
    Mattermost, Nextcloud): the server's URL is the ``issuer``, and the endpoints are
    paths under it. They are filled in as soon as the issuer is known, whether it is
    given to the factory or set later from ``AUTH_<ID>_ISSUER``; an endpoint given
    explicitly is kept. ``options["server_url"]`` records the URL they were built from.

    Attributes:
        paths: Endpoint name (``authorization``, ``token``, ``userinfo``) → its path
            under the server URL.
    """

    paths: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        server = (self.issuer or "").rstrip("/")
        built = self.options.get("server_url")
        if not server or server == built:
            return
        for name, path in self.paths.items():
            endpoint: Endpoint = getattr(self, name)
            if endpoint.url is None or (built and endpoint.url == f"{built}{path}"):
                object.__setattr__(self, name, dataclasses.replace(endpoint, url=server + path))
        object.__setattr__(self, "options", {**self.options, "server_url": server})


def server_provider(
    defaults: Mapping[str, Any], options: Mapping[str, Any], paths: Mapping[str, str]
) -> ServerProvider:
    """A ``ServerProvider`` from a built-in's ``defaults`` and the user's ``options``
    (merged as ``with_overrides`` does), its endpoints at ``paths`` under the issuer."""
    return with_overrides({**defaults, "paths": dict(paths)}, options, ServerProvider)
