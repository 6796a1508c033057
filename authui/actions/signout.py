"""POST /signout: end the session and go back to the callback URL, or on to the provider's
end_session endpoint for a federated sign-out (``authui.actions.federated``); GET /signout:
the page, and GET /signout/<provider>: the return from the provider."""

from __future__ import annotations

from authui.actions import federated, pages, step_up
from authui.actions.audit import signed_out
from authui.adapters.base import require_adapter
from authui.context import Context
from authui.errors import UnknownAction
from authui.http import InternalResponse
from authui.sessions import strategy_for
from authui.sessions.database import NEEDED_FOR
from authui.sessions.jwt import decode_token


async def get(ctx: Context) -> InternalResponse:
    """The sign-out page; with a provider, the provider's return after a federated
    sign-out."""
    if ctx.provider_id is None:
        return await pages.signout(ctx)
    return await federated.returned(ctx)


async def post(ctx: Context) -> InternalResponse:
    """End the session (and forget the federated sign-in); with ``federated=1`` and a
    sign-in at a provider with ``federated_logout``, go on to its end_session endpoint.

    Raises:
        UnknownAction: A provider in the path (``POST /signout/<provider>``).
    """
    if ctx.provider_id is not None:
        raise UnknownAction("POST /signout/<provider> is not supported: POST /signout instead")
    user_id = await _session_user_id(ctx)
    cookies = await strategy_for(ctx.options).destroy(ctx)
    if cookies:
        signed_out(ctx, user_id)
    target = ctx.callback_url
    if federated.asked(ctx):
        found = federated.signed_in_at(ctx)
        if found is None:
            ctx.options.logger.debug("A federated sign-out without a federated sign-in")
        else:
            target = await federated.end_session_url(ctx, found) or target
    ended = [*federated.forget(ctx), *step_up.ended(ctx)]
    return InternalResponse(redirect=target, cookies=[*cookies, *ended])


async def _session_user_id(ctx: Context) -> str | None:
    """Whose session is ending, for the log line; ``None`` when it cannot be read (ending
    it logs why)."""
    value = ctx.session_chunks().value
    if not value:
        return None
    try:
        if ctx.options.strategy == "database":
            found = await require_adapter(ctx.options.adapter, NEEDED_FOR).call(
                "get_session_and_user", NEEDED_FOR, value
            )
            return str(found[0].user_id) if found is not None else None
        token = await decode_token(ctx, value)
    except Exception:
        return None
    subject = (token or {}).get("sub")
    return str(subject) if subject is not None else None
