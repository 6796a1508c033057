"""Who the request's session cookie signs in, as a stored user (for linking decisions and
the account center), with when and how they signed in."""

from __future__ import annotations

from dataclasses import dataclass

from authui.adapters.account import SessionDetails
from authui.adapters.base import AdapterCalls, AdapterUser
from authui.context import Context
from authui.dates import now
from authui.jwt import JWT, JWTDecodeError
from authui.sessions.facts import UNKNOWN, SignInFacts, facts_of_token
from authui.sessions.jwt import decode_token
from authui.sessions.versions import outdated, session_version


@dataclass(frozen=True, slots=True)
class SignedIn:
    """The stored user of a request's session.

    Attributes:
        user: The user.
        facts: When and how they last signed in, in this session.
        session_token: With database sessions, the session's token (its row's key).
        token: With JWT sessions, the decoded token.
    """

    user: AdapterUser
    facts: SignInFacts
    session_token: str | None = None
    token: JWT | None = None


async def signed_in(
    ctx: Context,
    adapter: AdapterCalls,
    needed_for: str,
    *,
    check_version: bool = False,
    with_facts: bool = True,
) -> SignedIn | None:
    """The session's stored user: for JWT sessions the user whose id is the token's
    ``sub``, for database sessions the unexpired session's user. With ``check_version``,
    a JWT made before its user signed out everywhere counts as no session
    (``authui.sessions.versions``). Without ``with_facts``, a database session's facts are
    not read (``UNKNOWN``)."""
    value = ctx.session_chunks().value
    if not value:
        return None
    if ctx.options.strategy == "jwt":
        try:
            claims = await decode_token(ctx, value)
        except JWTDecodeError:
            return None
        sub = (claims or {}).get("sub")
        if claims is None or not isinstance(sub, str):
            return None
        if check_version and outdated(claims, await session_version(ctx, sub)):
            return None
        found: AdapterUser | None = await adapter.call("get_user", needed_for, sub)
        return None if found is None else SignedIn(found, facts_of_token(claims), token=claims)
    pair = await adapter.call("get_session_and_user", needed_for, value)
    if pair is None or pair[0].expires < now():
        return None
    facts = UNKNOWN
    if with_facts and adapter.has("get_session_details"):
        details: SessionDetails | None = await adapter.call(
            "get_session_details", needed_for, value
        )
        if details is not None:
            facts = SignInFacts(details.auth_time, details.amr)
    return SignedIn(pair[1], facts, session_token=value)


async def signed_in_user(
    ctx: Context, adapter: AdapterCalls, needed_for: str
) -> AdapterUser | None:
    """The stored user of this request's session (see ``signed_in``)."""
    current = await signed_in(ctx, adapter, needed_for, with_facts=False)
    return None if current is None else current.user


async def session_facts(ctx: Context) -> SignInFacts:
    """When and how the user of this request's session signed in: a JWT's claims, or a
    database session's details (``UNKNOWN`` without a session, or a valid one)."""
    value = ctx.session_chunks().value
    if not value:
        return UNKNOWN
    if ctx.options.strategy == "jwt":
        try:
            claims = await decode_token(ctx, value)
        except JWTDecodeError:
            return UNKNOWN
        return facts_of_token(claims or {})
    adapter = ctx.options.adapter
    if adapter is None or not adapter.has("get_session_details"):
        return UNKNOWN
    details: SessionDetails | None = await adapter.call(
        "get_session_details", "reading the session's sign-in facts", value
    )
    if details is None or details.expires < now():
        return UNKNOWN
    return SignInFacts(details.auth_time, details.amr)
