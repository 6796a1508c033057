"""Ping Identity (PingOne): OpenID Connect at an environment's authorization server,
``https://auth.pingone.<region>/<environment id>/as`` (``com``, ``eu``, ``ca``,
``asia`` …).

Add an application of type *OIDC Web App* in the PingOne admin console, give it the
``openid``, ``profile`` and ``email`` scopes, register
``<origin>/auth/callback/ping-id`` as a *Redirect URI* and enable it.
``AUTH_PING_ID_ID`` and ``AUTH_PING_ID_SECRET`` hold its client id and secret,
``AUTH_PING_ID_ISSUER`` the *Issuer* shown on its Configuration tab.

Quirks: the application's *Token Endpoint Authentication Method* must be *Client
Secret Basic* (PingOne's default), the method used here. Its *PKCE Enforcement* may be
*Optional* or *Required*: the challenge is always sent. The id_token names the
environment (``env``), the organisation (``org``) and the region (``p1.region``).
"""

from __future__ import annotations

from typing import Any

from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def PingId(**options: Any) -> OAuthProvider:
    """Sign in with Ping Identity. Pass ``issuer=`` or set ``AUTH_PING_ID_ISSUER``;
    keyword arguments override any ``OAuthProvider`` setting."""
    defaults = {
        "id": "ping-id",
        "name": "Ping Identity",
        "type": "oidc",
        "issuer": None,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
    }
    return with_overrides(defaults, options)
