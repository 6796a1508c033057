"""POST /backchannel-logout/<provider>: OpenID Connect Back-Channel Logout 1.0. The
provider tells the app, server to server, that a user signed out there; the app ends that
user's database sessions.

The request carries no browser cookie and no CSRF token: the signed ``logout_token`` is its
authority (``authui.oauth.logout_token``), and each token is accepted once (its ``jti``
holds a lease through the adapter for as long as the token is accepted). The answers are
the spec's: ``200`` with nothing in it when done, ``400`` with an OAuth error object when
the request or its token is refused, ``501`` when this configuration keeps no sessions to
end (JWT sessions live in the browser's cookie only). Never a redirect, never a page.
"""

from __future__ import annotations

from authui.adapters.base import AdapterUser, require_adapter
from authui.context import Context
from authui.http import InternalResponse
from authui.oauth.discovery import DiscoveryError
from authui.oauth.logout_token import MAX_AGE, logout_request
from authui.oauth.tokens import ID_TOKEN_LEEWAY, TokenError
from authui.providers.oauth import OAuthProvider

NEEDED_FOR = "back-channel logout"
NO_STORE = [("Cache-Control", "no-store")]


async def post(ctx: Context) -> InternalResponse:
    provider = ctx.options.providers.get(ctx.provider_id or "")
    if not isinstance(provider, OAuthProvider) or provider.type != "oidc":
        return _refused(f"{ctx.provider_id!r} is not an OpenID provider of this app")
    raw = ctx.body.get("logout_token")
    if not isinstance(raw, str) or not raw:
        return _refused("The request has no logout_token")
    if ctx.options.strategy != "database":
        ctx.options.logger.warning(
            "backchannel-logout-unsupported",
            {"provider": provider.id, "reason": "JWT sessions cannot be ended by the server"},
        )
        return InternalResponse.json(
            501,
            {
                "error": "unsupported",
                "error_description": "This app keeps no server-side sessions to end",
            },
            headers=NO_STORE,
        )
    try:
        request = await logout_request(provider, raw, ctx.options.discovery)
    except (TokenError, DiscoveryError) as exc:
        ctx.options.logger.warning(
            "backchannel-logout-refused", {"provider": provider.id, "reason": str(exc)}
        )
        return _refused(str(exc))
    if request.subject is None:
        return _refused("This app ends sessions by user: the logout token needs a sub")
    adapter = require_adapter(ctx.options.adapter, NEEDED_FOR)
    key = f"logout-token:{provider.id}:{request.token_id}"
    if await adapter.call("claim_lease", NEEDED_FOR, key, MAX_AGE + 2 * ID_TOKEN_LEEWAY) is None:
        return _refused("This logout token was used already")
    user: AdapterUser | None = await adapter.call(
        "get_user_by_account", NEEDED_FOR, provider.id, request.subject
    )
    ended = 0
    if user is not None:
        ended = await adapter.call("delete_user_sessions", NEEDED_FOR, user.id)
    found = {"provider": provider.id, "user": user.id if user else None, "sessions": ended}
    ctx.options.logger.info("backchannel-logout", found)
    return InternalResponse(status=200, headers=NO_STORE, body="")


def _refused(reason: str) -> InternalResponse:
    """The spec's 400: an OAuth error object saying why."""
    return InternalResponse.json(
        400, {"error": "invalid_request", "error_description": reason}, headers=NO_STORE
    )
