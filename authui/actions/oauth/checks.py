"""The checks of the authorization round trip: ``state``, PKCE and ``nonce``.

Each value is sealed (encrypted with the secret) in its own short-lived cookie, bound to
the provider it was made for, and consumed once: read at the callback and deleted there.
When one is missing or unreadable, the error says which and what usually causes it.
"""

from __future__ import annotations

import secrets
from dataclasses import replace
from typing import Any, Literal

from authlib.oauth2.rfc7636 import create_s256_code_challenge

from authui.context import Context
from authui.cookies import CHECK_MAX_AGE, Cookie, CookieOption, deletion
from authui.errors import InvalidCheck
from authui.jwt import JWTDecodeError, JWTExpired, decode, encode
from authui.providers.oauth import OAuthProvider
from authui.sealed import seal

CheckCookie = Literal["state", "pkce_code_verifier", "nonce"]

STATE_SALT = "encodedState"
"""The salt of the ``state`` parameter's own encryption (Auth.js's, for the redirect proxy)."""

_SECURE_PREFIX = "__Secure-"


def _option(ctx: Context, provider: OAuthProvider, key: CheckCookie) -> CookieOption:
    """The cookie for ``key``; a ``form_post`` callback is a cross-site POST, which only
    ``SameSite=None; Secure`` cookies accompany."""
    option = ctx.cookies.get(key)
    if provider.authorization.params.get("response_mode") == "form_post":
        return replace(option, options=replace(option.options, same_site="none", secure=True))
    return option


def _seal(ctx: Context, provider: OAuthProvider, key: CheckCookie, value: str) -> Cookie:
    return seal(ctx, _option(ctx, provider, key), provider.id, value)


def random_value() -> str:
    """32 random bytes, base64url: 43 characters."""
    return secrets.token_urlsafe(32)


def start(
    ctx: Context, provider: OAuthProvider, checks: tuple[str, ...], origin: str | None
) -> dict[str, str]:
    """Make the values of ``checks`` and queue their cookies; the authorization
    parameters they add (``state``; ``code_challenge`` and its method; ``nonce``).

    ``origin`` is this deployment's callback URL when a redirect proxy is used: it travels
    inside the ``state`` so that the proxy can forward the callback here.
    """
    params: dict[str, str] = {}
    if "state" in checks:
        data: dict[str, Any] = {"random": random_value()}
        if origin:
            data["origin"] = origin
        state = encode(token=data, secret=ctx.options.keys, salt=STATE_SALT, max_age=CHECK_MAX_AGE)
        ctx.set_cookies.append(_seal(ctx, provider, "state", state))
        params["state"] = state
    if "pkce" in checks:
        verifier = random_value()
        ctx.set_cookies.append(_seal(ctx, provider, "pkce_code_verifier", verifier))
        params["code_challenge"] = create_s256_code_challenge(verifier)
        params["code_challenge_method"] = "S256"
    if "nonce" in checks:
        nonce = random_value()
        ctx.set_cookies.append(_seal(ctx, provider, "nonce", nonce))
        params["nonce"] = nonce
    return params


def spend(ctx: Context, provider: OAuthProvider, checks: tuple[str, ...]) -> None:
    """Delete the cookies of ``checks`` with this response, whatever its outcome: a callback
    uses them once, and a failed one must not leave them for a second try."""
    keys: dict[str, CheckCookie] = {
        "state": "state",
        "pkce": "pkce_code_verifier",
        "nonce": "nonce",
    }
    for check in checks:
        option = _option(ctx, provider, keys[check])
        if option.name in ctx.request.cookies:
            ctx.spent_cookies.append(deletion(option.name, option.options))


def consume(ctx: Context, provider: OAuthProvider, key: CheckCookie) -> str:
    """The value sealed in ``key``'s cookie at sign-in (``spend`` deletes the cookie).

    Raises:
        InvalidCheck: The cookie is missing, expired, unreadable or from another provider;
            the message names the likely cause.
    """
    option = _option(ctx, provider, key)
    what = _NAMES[key]
    raw = ctx.request.cookies.get(option.name)
    if not raw:
        raise InvalidCheck(f"The {what} cookie ({option.name}) was missing. {_why_missing(ctx)}")
    try:
        sealed = decode(token=raw, secret=ctx.options.keys, salt=option.name)
    except JWTExpired as exc:
        raise InvalidCheck(
            f"The {what} cookie has expired: the sign-in took more than "
            f"{CHECK_MAX_AGE // 60} minutes. Sign in again",
            cause={"err": exc},
        ) from exc
    except JWTDecodeError as exc:
        raise InvalidCheck(
            f"The {what} cookie cannot be decrypted: it was sealed with another secret "
            "(AUTH_SECRET changed during the sign-in, or differs between the servers "
            "behind one site)",
            cause={"err": exc},
        ) from exc
    value = (sealed or {}).get("value")
    owner = (sealed or {}).get("provider")
    if owner != provider.id:
        raise InvalidCheck(
            f"The {what} cookie belongs to a sign-in with {owner!r}, not {provider.id!r}: "
            "another sign-in started in this browser in the meantime"
        )
    if not isinstance(value, str) or not value:
        raise InvalidCheck(f"The {what} cookie holds no value")
    return value


_NAMES: dict[CheckCookie, str] = {
    "state": "state",
    "pkce_code_verifier": "PKCE code verifier",
    "nonce": "nonce",
}


def _why_missing(ctx: Context) -> str:
    """The likely cause of a check cookie that did not come back."""
    names = set(ctx.request.cookies)
    secure_now = ctx.cookies.state.name.startswith(_SECURE_PREFIX)
    other_mode = {
        name
        for name in names
        if name.startswith(_SECURE_PREFIX) != secure_now
        and name.removeprefix(_SECURE_PREFIX).startswith("authjs.")
    }
    if other_mode and not secure_now:
        return (
            "The browser sent the HTTPS cookies of this site, but this callback was seen as "
            f"plain HTTP ({ctx.origin}): a proxy terminates TLS and authui does not know. "
            "Set AUTH_URL to the public https:// URL, or let the ASGI server apply the "
            "proxy's X-Forwarded-Proto (hypercorn/uvicorn proxy-headers settings)"
        )
    if other_mode:
        return (
            f"The browser sent plain-HTTP cookies, but this callback was seen as HTTPS "
            f"({ctx.origin}): the sign-in and the callback see different schemes"
        )
    return (
        f"Likely causes: the browser blocks cookies for this site; or the sign-in started "
        f"on another host, port or scheme than this callback ({ctx.origin}), e.g. behind a "
        "proxy while AUTH_URL is unset, or with the provider's redirect URI registered for "
        "another address; or the sign-in started more than "
        f"{CHECK_MAX_AGE // 60} minutes ago"
    )
