"""JWT sessions: the session is an encrypted JWT in the (possibly chunked) session cookie."""

from __future__ import annotations

import copy
import time
from datetime import datetime
from typing import Any

from authui.callbacks import default_jwt, default_session, emit, invoke
from authui.context import Context
from authui.cookies import CHUNK_SIZE, Cookie, SessionChunks
from authui.dates import in_seconds, timestamp_to_iso, to_iso
from authui.errors import JWTSessionError, SignOutError
from authui.jwt import JWT
from authui.sessions.facts import SignInFacts, new_sign_in, token_claims
from authui.sessions.versions import outdated, session_version, version_claim


async def encode_token(ctx: Context, token: JWT) -> str:
    """Encode with ``config.jwt.encode`` when given, else ``authui.jwt.encode``."""
    options = ctx.options
    salt = ctx.cookies.session_token.name
    encoder = options.config.jwt.encode
    if encoder is None:
        return options.key_ring.encode(token, salt, options.jwt_max_age)
    secret = list(options.keys)
    return str(
        await invoke(encoder, token=token, secret=secret, salt=salt, max_age=options.jwt_max_age)
    )


async def decode_token(ctx: Context, token: str) -> JWT | None:
    """Decode with ``config.jwt.decode`` when given, else ``authui.jwt.decode``."""
    decoder = ctx.options.config.jwt.decode
    salt = ctx.cookies.session_token.name
    if decoder is None:
        return ctx.options.key_ring.decode(token, salt)
    result = await invoke(decoder, token=token, secret=list(ctx.options.keys), salt=salt)
    return dict(result) if result is not None else None


def write_token(ctx: Context, chunks: SessionChunks, value: str, expires: datetime) -> list[Cookie]:
    """Cookies that store the token, logging at debug level when it needs chunks."""
    cookies = chunks.write(value, expires)
    written = [c for c in cookies if c.value]
    if len(written) > 1:
        ctx.options.logger.debug(
            "CHUNKING_SESSION_COOKIE",
            {"chunks": len(written), "value_size": len(value), "chunk_size": CHUNK_SIZE},
        )
    return cookies


def default_token(user: dict[str, Any], account: dict[str, Any] | None = None) -> JWT:
    """The token made at sign-in: ``name``, ``email``, ``picture`` (the user's ``image``) and
    ``sub``. A key the user lacks stays out of the token, as JavaScript's ``undefined`` does.

    Auth.js builds a credentials sign-in's token from what ``authorize`` returned; with an
    adapter authui reads the stored user instead, so that user's empty fields stay out too
    (no ``"picture": null`` where Auth.js has no claim)."""
    pairs = (("name", "name"), ("email", "email"), ("picture", "image"))
    credentials = account is not None and account.get("type") == "credentials"
    token: JWT = {
        claim: user[key]
        for claim, key in pairs
        if key in user and not (credentials and user[key] is None)
    }
    token["sub"] = str(user["id"])
    return token


PROVIDER_TOKEN_CLAIMS = ("access_token", "expires_at", "refresh_token")
"""What ``JWTOptions.provider_tokens`` keeps of the sign-in's account, with ``provider``."""


def with_provider_tokens(token: JWT, account: dict[str, Any] | None) -> JWT:
    """``token`` with the OAuth account's tokens (``JWTOptions.provider_tokens``)."""
    if not account or account.get("type") not in ("oauth", "oidc"):
        return token
    kept = {name: account[name] for name in PROVIDER_TOKEN_CLAIMS if account.get(name)}
    return {**token, "provider": account["provider"], **kept}


def session_user(token: JWT) -> dict[str, Any]:
    """The session's ``user``: name, email and image from the token, absent keys left out."""
    pairs = (("name", "name"), ("email", "email"), ("image", "picture"))
    return {key: token[claim] for key, claim in pairs if claim in token}


def _current(ctx: Context, value: str) -> bool:
    """Whether the cookie's token is in the current form: made by authui's own encoder with
    the newest secret (a custom encoder's tokens are always re-issued)."""
    options = ctx.options
    if options.config.jwt.encode or options.config.jwt.decode:
        return False
    return options.key_ring.is_newest(value, ctx.cookies.session_token.name)


def _due(token: JWT, update_age: int) -> bool:
    """Whether a token is old enough to re-issue: issued ``update_age`` seconds ago or more
    (or of unknown age: no numeric ``iat`` and ``exp``)."""
    issued_at, expiry = token.get("iat"), token.get("exp")
    if not isinstance(issued_at, int | float) or not isinstance(expiry, int | float):
        return True
    return time.time() - issued_at >= update_age


class JWTSessions:
    """The ``jwt`` strategy: nothing is stored server-side."""

    async def read(
        self,
        ctx: Context,
        *,
        is_update: bool = False,
        new_session: Any = None,
        claims: dict[str, Any] | None = None,
    ) -> tuple[Any, list[Cookie]]:
        """Check the session: ``(session JSON or None, cookies to set)``.

        A valid token is re-issued with a new expiry (a rolling session) when it is older
        than ``session.update_age``, or when this check changed it (the ``jwt`` callback,
        an update, ``claims``); otherwise the cookie stays as it is, which saves an
        encryption and a ``Set-Cookie`` per check. A broken token is logged as
        ``JWTSessionError`` and its cookies are cleared. ``claims`` are set on the token
        before the ``jwt`` callback runs: only for values the server validated.
        """
        options = ctx.options
        chunks = ctx.session_chunks()
        value = chunks.value
        if not value:
            return None, []
        try:
            payload = await decode_token(ctx, value)
            if payload is None:
                raise JWTSessionError("The session token decoded to nothing")
            # A callback may change the token in place: compare with a copy (the default
            # callback changes nothing, and saves the copy).
            custom = options.jwt_callback is not default_jwt
            issued = copy.deepcopy(payload) if custom else dict(payload)
            payload.update(claims or {})
            extra: dict[str, Any] = {"trigger": "update"} if is_update else {}
            token = (
                await invoke(options.jwt_callback, token=payload, session=new_session, **extra)
                if custom
                else payload
            )
            if token is None:
                return None, chunks.clear()
            due = _due(issued, options.config.session.update_age)
            if due and outdated(token, await session_version(ctx, token.get("sub"))):
                return None, chunks.clear()  # signed out everywhere since it was made
            reissue = (
                is_update
                or bool(claims)
                or (custom and token != issued)
                or due
                or not _current(ctx, value)
            )
            expires = in_seconds(options.config.session.max_age) if reissue else None
            session: Any = {
                "user": session_user(token),
                "expires": to_iso(expires) if expires else timestamp_to_iso(issued["exp"]),
            }
            if isinstance(token.get("error"), str):  # a failed refresh of the kept tokens
                session["error"] = token["error"]
            elif ctx.request.cookies.get(ctx.cookies.refresh_error.name):
                session["error"] = "RefreshTokenError"  # of tokens in the accounts table
            if options.session_callback is not default_session:
                session = await invoke(
                    options.session_callback,
                    session=session,
                    token=token,
                    new_session=new_session,
                    **extra,
                )
            cookies = []
            if expires is not None:
                cookies = write_token(ctx, chunks, await encode_token(ctx, token), expires)
            await emit(options.config.events.session, options.logger, session=session, token=token)
            return session, cookies
        except Exception as exc:
            options.logger.error(JWTSessionError(cause={"err": exc}))
            return None, chunks.clear()

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
        """Sign ``user`` in: run the ``jwt`` callback and set the session cookie(s).

        The first token carries when and how the user signed in (``facts``; by default
        now, with ``account``'s type: ``authui.sessions.facts``) and the user's session
        version (``authui.sessions.versions``)."""
        options = ctx.options
        first = default_token(user, account)
        first.update(token_claims(facts or new_sign_in(account)))
        first.update(version_claim(await session_version(ctx, first["sub"])))
        if options.config.jwt.provider_tokens:
            first = with_provider_tokens(first, account)
        token = await invoke(
            options.jwt_callback,
            token=first,
            user=user,
            account=account,
            profile=profile,
            is_new_user=is_new_user,
            trigger="signUp" if is_new_user else "signIn",
        )
        chunks = ctx.session_chunks()
        if token is None:
            return chunks.clear()
        expires = in_seconds(options.config.session.max_age)
        return write_token(ctx, chunks, await encode_token(ctx, token), expires)

    async def destroy(self, ctx: Context) -> list[Cookie]:
        """Sign out: emit ``sign_out`` with the decoded token and clear the cookies."""
        chunks = ctx.session_chunks()
        value = chunks.value
        if not value:
            return []
        options = ctx.options
        try:
            token = await decode_token(ctx, value)
        except Exception as exc:
            options.logger.error(SignOutError(cause={"err": exc}))
        else:
            await emit(options.config.events.sign_out, options.logger, token=token)
        return chunks.clear()
