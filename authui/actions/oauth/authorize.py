"""The authorization request: where ``POST /signin/<provider>`` sends the user."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from authui.actions.oauth import checks
from authui.context import Context
from authui.providers.oauth import OAuthProvider
from authui.urls import origin_of

OIDC_SCOPE = "openid profile email"

FIXED_PARAMS = frozenset({"response_type", "client_id", "redirect_uri", "callbackUrl"})
"""Parameters the sign-in request's query cannot set: the client's identity, where the code
goes, and authui's own ``callbackUrl``."""


def proxy_callback(ctx: Context, provider: OAuthProvider) -> str | None:
    """The redirect proxy's callback URL for ``provider``, when a proxy is configured
    (never for ``form_post`` providers, whose cross-site POST a proxy cannot forward)."""
    base = provider.redirect_proxy_url or ctx.options.config.redirect_proxy_url
    if not base or provider.authorization.params.get("response_mode") == "form_post":
        return None
    return f"{base.rstrip('/')}/callback/{provider.id}"


def redirect_uri(ctx: Context, provider: OAuthProvider) -> str:
    """The ``redirect_uri``: this site's callback, or the proxy's when this deployment is
    not the proxy itself. The token request repeats the same value."""
    proxy = proxy_callback(ctx, provider)
    if proxy is not None and origin_of(proxy) != ctx.origin:
        return proxy
    return ctx.action_url("callback", provider.id)


def active_checks(ctx: Context, provider: OAuthProvider) -> tuple[str, ...]:
    """The provider's checks, plus ``state`` when a redirect proxy carries the callback."""
    found = tuple(c for c in provider.checks if c != "none")
    if proxy_callback(ctx, provider) is not None and "state" not in found:
        found += ("state",)
    return found


def _query_value(value: Any) -> str:
    if isinstance(value, Mapping):
        return json.dumps(value, separators=(",", ":"))
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


async def authorization_url(ctx: Context, provider: OAuthProvider) -> str:
    """The provider's authorization URL for this sign-in; the check cookies are queued.

    Parameters, later ones winning: ``response_type``, ``client_id``, ``redirect_uri``;
    the provider's ``authorization.params``; the query of its authorization URL; the
    sign-in request's query (``sign_in("google", login_hint=…)``) except ``FIXED_PARAMS``.
    The checks' values come last and cannot be overridden.

    Raises:
        DiscoveryError: The endpoint had to be discovered and could not be.
    """
    found = await ctx.options.discovery.endpoints(provider, need=("authorization",))
    url = urlsplit(found.authorization or "")
    own_callback = ctx.action_url("callback", provider.id)
    params: dict[str, str] = {
        "response_type": "code",
        "client_id": provider.client_id or "",
        "redirect_uri": redirect_uri(ctx, provider),
    }
    params.update((k, _query_value(v)) for k, v in provider.authorization.params.items())
    params.update(parse_qsl(url.query, keep_blank_values=True))
    params.update((k, v) for k, v in ctx.query.items() if k not in FIXED_PARAMS)
    proxied = params["redirect_uri"] != own_callback
    params.update(
        checks.start(ctx, provider, active_checks(ctx, provider), own_callback if proxied else None)
    )
    if provider.type == "oidc" and "scope" not in params:
        params["scope"] = OIDC_SCOPE
    return urlunsplit(url._replace(query=urlencode(params)))
