"""Sealed cookies: a value encrypted with the secret and bound to the provider that made it.

Mostly short-lived state of a ceremony in progress (OAuth checks, passkey challenges, the
``state`` of a federated sign-out); also what a federated sign-out needs, kept as long as a
session."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from authui.context import Context
from authui.cookies import CHECK_MAX_AGE, Cookie, CookieOption
from authui.jwt import JWTDecodeError, decode, encode


def seal(
    ctx: Context, option: CookieOption, provider_id: str, value: Any, max_age: int = CHECK_MAX_AGE
) -> Cookie:
    """The cookie ``option`` holding ``value`` for ``provider_id``, for ``max_age`` seconds
    (the cookie's ``Max-Age`` and the sealed token's expiry)."""
    sealed = encode(
        token={"value": value, "provider": provider_id},
        secret=ctx.options.keys,
        salt=option.name,
        max_age=max_age,
    )
    return Cookie(option.name, sealed, replace(option.options, max_age=max_age))


@dataclass(frozen=True, slots=True)
class Unsealed:
    """What a sealed cookie holds: the provider it is bound to, and the value."""

    provider: str
    value: Any


def unseal(ctx: Context, option: CookieOption, *, latest: bool = False) -> Unsealed | None:
    """The content of this request's cookie ``option``; ``None`` when there is none, or it
    cannot be opened (expired, forged, sealed with another secret, not sealed by ``seal``).
    With ``latest``, a value this request sets (``ctx.set_cookies``) counts instead: what
    the browser will hold once it has the answer (an emptied cookie holds nothing).

    Callers that must say why use ``authui.jwt.decode`` themselves."""
    raw = ctx.request.cookies.get(option.name)
    if latest:
        raw = next((c.value for c in reversed(ctx.set_cookies) if c.name == option.name), raw)
    if not raw:
        return None
    try:
        sealed = decode(token=raw, secret=ctx.options.keys, salt=option.name)
    except JWTDecodeError:
        return None
    provider = (sealed or {}).get("provider")
    if not isinstance(provider, str):
        return None
    return Unsealed(provider, (sealed or {}).get("value"))
