"""Database sessions: the cookie holds a random session token; the session is a row.

One adapter round trip per session check (``get_session_and_user``), which reads the row
anew every time: a session deleted by any process (a sign-out, a revocation) is gone for
the next request everywhere. The stored expiry is pushed out at most once per
``update_age``, by an ``update_session`` the check does not wait for (``authui.pending``),
and the cookie is re-set with the new expiry then (and on an update), so that it expires
with the stored session; an expired session is deleted.
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from authui.adapters.account import SessionDetails
from authui.adapters.base import (
    AdapterCalls,
    AdapterSession,
    AdapterUser,
    require_adapter,
    user_record,
)
from authui.callbacks import default_session, emit, invoke
from authui.context import Context
from authui.cookies import Cookie
from authui.dates import in_seconds, now, to_iso
from authui.errors import (
    AdapterError,
    AuthError,
    ServiceUnavailable,
    SessionTokenError,
    SignOutError,
)
from authui.proxies import client_address
from authui.sessions.facts import SignInFacts, new_sign_in
from authui.user_agents import kept_client, kept_user_agent

NEEDED_FOR = "database sessions"


def user_json(user: AdapterUser) -> dict[str, Any]:
    """The session's ``user``: name, email and image."""
    return {"name": user.name, "email": user.email, "image": user.image}


async def store_new_user(ctx: Context, user: AdapterUser) -> dict[str, Any]:
    """Store a new user (JWT sessions with an adapter) and emit ``create_user``."""
    needed_for = "storing new users"
    stored = await require_adapter(ctx.options.adapter, needed_for).call(
        "create_user", needed_for, user
    )
    record = user_record(stored)
    await emit(ctx.options.config.events.create_user, ctx.options.logger, user=record)
    return record


async def _remember(
    ctx: Context, adapter: AdapterCalls, session: AdapterSession, facts: SignInFacts
) -> None:
    """Keep what the account center shows of a new session (when the adapter keeps
    details): the browser, the client's address, and when and how the user signed in."""
    if not adapter.has("save_session_details"):
        return
    created = now()
    details = SessionDetails(
        session_token=session.session_token,
        user_id=session.user_id,
        expires=session.expires,
        created=created,
        last_seen=created,
        auth_time=facts.auth_time or created,
        amr=facts.amr,
        user_agent=kept_user_agent(ctx.request.headers.get("user-agent")),
        client=kept_client(client_address(ctx.request, ctx.options.config.trusted_proxies)),
    )
    await adapter.call("save_session_details", NEEDED_FOR, details)


def _push_out(ctx: Context, token: str, expires: datetime) -> None:
    """Store the session's new expiry after the answer (``authui.pending``): the check
    does not wait for it, and one that fails leaves the stored expiry due, so the next
    check tries again."""
    adapter = require_adapter(ctx.options.adapter, NEEDED_FOR)

    async def write() -> None:
        await adapter.call("update_session", NEEDED_FOR, token, expires)
        if adapter.has("touch_session_details"):
            await adapter.call("touch_session_details", NEEDED_FOR, token, now(), expires)

    ctx.options.pending.start(token, write, ctx.options.logger)


class DatabaseSessions:
    """The ``database`` strategy."""

    async def read(
        self,
        ctx: Context,
        *,
        is_update: bool = False,
        new_session: Any = None,
        claims: dict[str, Any] | None = None,
    ) -> tuple[Any, list[Cookie]]:
        """Check the session: ``(session JSON or None, cookies to set)``.

        ``claims`` (validated by the server) update the user record, e.g. the name chosen
        on the new-user page. A failure other than an outage is logged as
        ``SessionTokenError`` (an adapter's in one line, without the values it quotes) and
        the answer is ``None``, the cookie left alone.

        Raises:
            ServiceUnavailable: The database is unreachable: the session is neither there
                nor gone, and the cookie is kept for when the database is back.
        """
        chunks = ctx.session_chunks()
        token = chunks.value
        if not token:
            return None, []
        options = ctx.options
        adapter = require_adapter(ctx.options.adapter, NEEDED_FOR)
        try:
            found = await adapter.call("get_session_and_user", NEEDED_FOR, token)
            current = now()
            if found is not None and found[0].expires < current:
                await adapter.call("delete_session", NEEDED_FOR, token)
                found = None
            if found is None:
                return None, chunks.clear()
            session, user = found
            max_age = options.config.session.max_age
            update_age = options.config.session.update_age
            expires = current + timedelta(seconds=max_age)
            due = session.expires - timedelta(seconds=max_age - update_age) <= current
            if due:
                _push_out(ctx, token, expires)
            if claims:
                user = await adapter.call("update_user", "the new-user page", user.id, claims)
            payload: Any = {"user": user_json(user), "expires": to_iso(session.expires)}
            if ctx.request.cookies.get(ctx.cookies.refresh_error.name):
                payload["error"] = "RefreshTokenError"  # get_access_token could not refresh
            if options.session_callback is not default_session:
                extra: dict[str, Any] = {"trigger": "update"} if is_update else {}
                payload = await invoke(
                    options.session_callback,
                    session=payload,
                    user=user,
                    new_session=new_session,
                    **extra,
                )
        except ServiceUnavailable:
            raise
        except AdapterError as exc:
            options.logger.error(SessionTokenError(exc.detail))
            return None, []
        except Exception as exc:
            options.logger.error(SessionTokenError(cause={"err": exc}))
            return None, []
        await emit(options.config.events.session, options.logger, session=payload)
        if not (due or is_update or claims):
            return payload, []  # the cookie already expires with the stored session
        option = ctx.cookies.session_token
        return payload, [Cookie(option.name, token, replace(option.options, expires=expires))]

    async def create(
        self,
        ctx: Context,
        *,
        user: dict[str, Any],
        account: dict[str, Any] | None,
        profile: Any = None,
        is_new_user: bool | None = None,
        facts: SignInFacts | None = None,
    ) -> list[Cookie]:
        """Sign ``user`` (a stored user) in: a new session row, its details (when and how
        the user signed in: ``facts``, by default now with ``account``'s type), and its
        cookie."""
        config = ctx.options.config
        generate = config.session.generate_session_token
        token = generate() if generate is not None else str(uuid.uuid4())
        session = AdapterSession(
            session_token=token, user_id=str(user["id"]), expires=in_seconds(config.session.max_age)
        )
        adapter = require_adapter(ctx.options.adapter, NEEDED_FOR)
        await adapter.call("create_session", NEEDED_FOR, session)
        await _remember(ctx, adapter, session, facts or new_sign_in(account))
        return self._cookies(ctx, session)

    async def reauthenticated(self, ctx: Context, facts: SignInFacts) -> None:
        """The signed-in user proved who they are again (a step-up that keeps the
        session): the session's details take the new ``auth_time`` and ``amr``."""
        token = ctx.session_chunks().value
        adapter = require_adapter(ctx.options.adapter, NEEDED_FOR)
        if not token or not adapter.has("get_session_details"):
            return
        kept: SessionDetails | None = await adapter.call("get_session_details", NEEDED_FOR, token)
        if kept is None:
            return
        renewed = replace(kept, auth_time=facts.auth_time or now(), amr=facts.amr)
        await adapter.call("save_session_details", NEEDED_FOR, renewed)

    @staticmethod
    def _cookies(ctx: Context, session: AdapterSession) -> list[Cookie]:
        option = ctx.cookies.session_token
        stale = [c for c in ctx.session_chunks().clear() if c.name != option.name]
        expiring = replace(option.options, expires=session.expires)
        return [*stale, Cookie(option.name, session.session_token, expiring)]

    async def create_for_new_user(
        self, ctx: Context, user: AdapterUser, account: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], list[Cookie]]:
        """Store a new user and its first session, atomically when the adapter offers
        ``create_user_and_session``; emit ``create_user``. Returns the user and cookies."""
        config = ctx.options.config
        adapter = require_adapter(ctx.options.adapter, NEEDED_FOR)
        generate = config.session.generate_session_token
        token = generate() if generate is not None else str(uuid.uuid4())
        expires = in_seconds(config.session.max_age)
        needed_for = "storing new users"
        if adapter.has("create_user_and_session"):
            stored, session = await adapter.call(
                "create_user_and_session", needed_for, user, token, expires
            )
        else:
            stored = await adapter.call("create_user", needed_for, user)
            session = AdapterSession(session_token=token, user_id=stored.id, expires=expires)
            await adapter.call("create_session", NEEDED_FOR, session)
        await _remember(ctx, adapter, session, new_sign_in(account))
        record = user_record(stored)
        await emit(config.events.create_user, ctx.options.logger, user=record)
        return record, self._cookies(ctx, session)

    async def delete(self, ctx: Context, session_token: str) -> None:
        """Delete the session row of ``session_token`` (one this browser no longer uses)."""
        await require_adapter(ctx.options.adapter, NEEDED_FOR).call(
            "delete_session", NEEDED_FOR, session_token
        )

    async def destroy(self, ctx: Context) -> list[Cookie]:
        """Sign out: delete the row, emit ``sign_out`` with it, clear the cookie. When the
        row cannot be deleted (the database is down), the cookie is cleared all the same:
        this browser is signed out, and the row ends at its expiry."""
        chunks = ctx.session_chunks()
        token = chunks.value
        if not token:
            return []
        options = ctx.options
        try:
            session = await require_adapter(ctx.options.adapter, NEEDED_FOR).call(
                "delete_session", NEEDED_FOR, token
            )
        except AuthError as exc:  # an outage too: the cookie goes all the same
            options.logger.error(SignOutError(f"The session row stays: {exc.detail}"))
        else:
            await emit(options.config.events.sign_out, options.logger, session=session)
        return chunks.clear()
