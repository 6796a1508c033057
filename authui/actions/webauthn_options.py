"""GET /webauthn-options/<provider>: the options of the passkey ceremony the request gets
(WebAuthn providers only), with the challenge cookie (``authui.actions.webauthn``)."""

from __future__ import annotations

from typing import Any, Literal

from authui.actions.webauthn import authentication, registration
from authui.actions.webauthn.ceremony import stored_passkeys
from authui.actions.webauthn.challenges import NEEDED_FOR, issue
from authui.adapters.base import AdapterCalls, AdapterUser, require_adapter, user_record
from authui.context import Context
from authui.errors import InvalidProvider
from authui.http import InternalResponse
from authui.providers.webauthn import WebAuthnProvider
from authui.sessions.current import signed_in_user

Ceremony = Literal["register", "authenticate"]


def decide(action: str | None, *, logged_in: bool, known: bool, exists: bool) -> Ceremony | None:
    """Which ceremony a request for options gets (Auth.js's decision rules).

    ``known``: an email (or a session) names a user; ``exists``: that user is stored.
    """
    if action == "authenticate":
        return "authenticate"
    if action == "register":
        return "register" if known and logged_in == exists else None
    if logged_in:
        return None
    return "register" if known and not exists else "authenticate"


async def get(ctx: Context) -> InternalResponse:
    """``{"action", "options"}`` for the ceremony the rules choose, with the challenge
    cookie; 400 ``{"error": …}`` for a bad or impossible request."""
    provider = ctx.provider
    if not isinstance(provider, WebAuthnProvider):
        raise InvalidProvider(f"Provider {provider.id!r} is not a WebAuthn provider")
    action = ctx.query.get("action")
    if action not in (None, "register", "authenticate"):
        return InternalResponse.json(400, {"error": "Invalid action"})
    adapter = require_adapter(ctx.options.adapter, NEEDED_FOR)
    current = await signed_in_user(ctx, adapter, NEEDED_FOR)
    user: dict[str, Any] | None
    if current is not None:
        user, exists = user_record(current), True
    else:
        user, exists = await _named_user(ctx, adapter)
    chosen = decide(action, logged_in=current is not None, known=user is not None, exists=exists)
    if chosen is None or (chosen == "register" and not (user and user.get("email"))):
        return InternalResponse.json(400, {"error": "Invalid request"})
    known = await stored_passkeys(adapter, user["id"]) if user and exists else []
    if chosen == "register":
        assert user is not None
        offer = registration.options(ctx, provider, user, exists=exists, known=known)
    else:
        offer = authentication.options(ctx, provider, known)
    cookie = await issue(ctx, provider, adapter, offer.challenge, offer.remember)
    return InternalResponse.json(
        200, {"action": chosen, "options": offer.options}, cookies=[cookie]
    )


async def _named_user(ctx: Context, adapter: AdapterCalls) -> tuple[dict[str, Any] | None, bool]:
    """The user the request's ``email`` names: ``(stored user, True)``, ``({"email"},
    False)`` for a new address, ``(None, False)`` without one."""
    email = ctx.query.get("email") if ctx.method == "GET" else ctx.body.get("email")
    if not isinstance(email, str) or not email.strip():
        return None, False
    address = email.strip().lower()
    found: AdapterUser | None = await adapter.call("get_user_by_email", NEEDED_FOR, address)
    return (user_record(found), True) if found else ({"email": address}, False)
