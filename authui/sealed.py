"""Short-lived sealed cookies of a ceremony in progress (OAuth checks, passkey challenges):
the value encrypted with the secret and bound to the provider that made it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from authui.context import Context
from authui.cookies import CHECK_MAX_AGE, Cookie, CookieOption
from authui.jwt import encode


def seal(ctx: Context, option: CookieOption, provider_id: str, value: Any) -> Cookie:
    """The cookie ``option`` holding ``value`` for ``provider_id``, for ``CHECK_MAX_AGE``."""
    sealed = encode(
        token={"value": value, "provider": provider_id},
        secret=ctx.options.keys,
        salt=option.name,
        max_age=CHECK_MAX_AGE,
    )
    return Cookie(option.name, sealed, replace(option.options, max_age=CHECK_MAX_AGE))
