"""Federated sign-out (OpenID Connect RP-Initiated Logout 1.0), for providers with
``federated_logout``.

- A sign-in with such a provider keeps, in the sealed ``authui.federated`` cookie (as long
  as a session), the provider's id, the id_token (for ``id_token_hint``) and its ``sid``.
- A sign-out that asks for it (``federated=1``) ends the app's session as always, then
  sends the browser to the provider's ``end_session_endpoint`` with ``id_token_hint``,
  ``client_id``, ``post_logout_redirect_uri`` (``<base>/signout/<id>``) and a random
  ``state``, sealed in the short-lived ``authui.logout-state`` cookie. Without the cookie,
  an end_session endpoint or a discovery document, it is the ordinary sign-out.
- The provider sends the browser back to ``GET <base>/signout/<id>?state=…``: the state
  is checked against its cookie and the browser goes on to the callback URL.
"""

from __future__ import annotations

import hmac
import json
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from joserfc.errors import JoseError
from joserfc.jws import extract_compact

from authui.context import Context
from authui.cookies import CHECK_MAX_AGE, Cookie, deletion
from authui.env import env_flag
from authui.errors import BadRequest
from authui.http import InternalResponse
from authui.providers.oauth import OAuthProvider
from authui.proxies import client_address
from authui.sealed import seal, unseal

COOKIE_LIMIT = 4096
"""The longest ``Set-Cookie`` value (name, value and attributes) every browser keeps
(RFC 6265 §6.1's minimum)."""

FAILED = "federated-sign-out-failed"
"""The warning line of a federated sign-out that fell back to the ordinary one because the
provider's discovery document could not be had or has no ``end_session_endpoint``."""


@dataclass(frozen=True, slots=True)
class FederatedSignIn:
    """What the ``federated`` cookie says about this browser's sign-in at a provider.

    Attributes:
        provider: The provider (one with ``federated_logout``).
        id_token: The id_token of the sign-in, for ``id_token_hint``; ``None`` when it was
            too large to keep.
        sid: The id_token's ``sid`` (the provider's session), if it had one.
    """

    provider: OAuthProvider
    id_token: str | None
    sid: str | None


def asked(ctx: Context) -> bool:
    """Whether the sign-out request asks to sign out of the provider too (``federated=1``)."""
    value = ctx.body.get("federated")
    if isinstance(value, bool):
        return value
    return isinstance(value, str) and env_flag(value) is True


def remember(ctx: Context, account: dict[str, Any] | None) -> list[Cookie]:
    """The ``federated`` cookie for a sign-in with the provider of ``ctx``: none unless that
    provider has ``federated_logout``. An id_token that would make the cookie too large for
    browsers is left out (the sign-out then names the client by ``client_id`` alone)."""
    provider = ctx.options.providers.get(ctx.provider_id or "")
    if not isinstance(provider, OAuthProvider) or not provider.federated_logout:
        return []
    raw = (account or {}).get("id_token")
    id_token = raw if isinstance(raw, str) and raw else None
    value: dict[str, str] = {}
    sid = _sid(id_token)
    if sid is not None:
        value["sid"] = sid
    option = ctx.cookies.federated
    max_age = option.options.max_age or ctx.options.config.session.max_age
    if id_token is not None:
        cookie = seal(ctx, option, provider.id, {**value, "id_token": id_token}, max_age)
        if len(cookie.serialize()) <= COOKIE_LIMIT:
            return [cookie]
        ctx.options.logger.debug(
            f"{provider.id}: the id_token ({len(id_token)} characters) is too large to keep "
            "for the federated sign-out; it will send no id_token_hint, only client_id",
            {"provider": provider.id},
        )
    return [seal(ctx, option, provider.id, value, max_age)]


def _sid(id_token: str | None) -> str | None:
    """The ``sid`` claim of an id_token the callback verified already; ``None`` when it has
    none or cannot be read (an encrypted id_token)."""
    if id_token is None:
        return None
    try:
        claims = json.loads(extract_compact(id_token.encode()).payload)
    except (ValueError, JoseError):
        return None
    sid = claims.get("sid") if isinstance(claims, dict) else None
    return sid if isinstance(sid, str) and sid else None


def signed_in_at(ctx: Context) -> FederatedSignIn | None:
    """The federated sign-in the request's ``federated`` cookie names; ``None`` without
    one, or for a cookie that cannot be opened (forged, sealed with another secret,
    expired) or names no provider with ``federated_logout``."""
    option = ctx.cookies.federated
    if option.name not in ctx.request.cookies:
        return None
    found = unseal(ctx, option)
    provider = ctx.options.providers.get(found.provider) if found is not None else None
    if found is None or not isinstance(found.value, dict):
        ctx.options.logger.debug(f"The {option.name} cookie cannot be opened: ignored")
        return None
    if not isinstance(provider, OAuthProvider) or not provider.federated_logout:
        ctx.options.logger.debug(
            f"The {option.name} cookie names {found.provider!r}, which is no provider with "
            "federated_logout: ignored"
        )
        return None
    id_token, sid = found.value.get("id_token"), found.value.get("sid")
    return FederatedSignIn(
        provider,
        id_token if isinstance(id_token, str) else None,
        sid if isinstance(sid, str) else None,
    )


def forget(ctx: Context) -> list[Cookie]:
    """The deletion of the request's ``federated`` cookie (every sign-out sends it)."""
    option = ctx.cookies.federated
    if option.name not in ctx.request.cookies:
        return []
    return [deletion(option.name, option.options)]


async def end_session_url(ctx: Context, found: FederatedSignIn) -> str | None:
    """The provider's end_session URL for this sign-out (its ``state`` cookie queued);
    ``None`` when the provider's discovery document cannot be had or has no
    ``end_session_endpoint`` (logged as a ``federated-sign-out-failed`` warning)."""
    provider = found.provider
    try:
        document = await ctx.options.discovery.discover(provider)
    except Exception as exc:
        _failed(ctx, provider, f"its discovery document cannot be had: {exc}")
        return None
    endpoint = document.get("end_session_endpoint")
    if not isinstance(endpoint, str) or urlsplit(endpoint).scheme not in ("http", "https"):
        _failed(ctx, provider, "its discovery document has no end_session_endpoint")
        return None
    state = secrets.token_urlsafe(32)
    ctx.set_cookies.append(seal(ctx, ctx.cookies.logout_state, provider.id, state))
    url = urlsplit(endpoint)
    params = dict(parse_qsl(url.query, keep_blank_values=True))
    if found.id_token is not None:
        params["id_token_hint"] = found.id_token
    if provider.client_id:
        params["client_id"] = provider.client_id
    params["post_logout_redirect_uri"] = ctx.action_url("signout", provider.id)
    params["state"] = state
    return urlunsplit(url._replace(query=urlencode(params)))


def _failed(ctx: Context, provider: OAuthProvider, reason: str) -> None:
    ctx.options.logger.warning(
        FAILED,
        {
            "provider": provider.id,
            "reason": f"{reason}; signed out of this site only",
            "client": client_address(ctx.request, ctx.options.config.trusted_proxies),
        },
    )


async def returned(ctx: Context) -> InternalResponse:
    """``GET <base>/signout/<id>?state=…``: the provider sends the browser back after its
    sign-out. The ``state`` must be the one sealed for that provider in the state cookie
    (which is deleted, whatever the outcome); then the browser goes to the callback URL.

    Raises:
        BadRequest: No state cookie (none was sent, or it was used already), or a state
            that is missing or another than the cookie's.
    """
    option = ctx.cookies.logout_state
    if option.name in ctx.request.cookies:
        ctx.spent_cookies.append(deletion(option.name, option.options))
    found = unseal(ctx, option)
    expected = found.value if found is not None and found.provider == ctx.provider_id else None
    given = ctx.query.get("state", "")
    if not isinstance(expected, str) or not expected:
        raise BadRequest(
            f"A return from signing out of {ctx.provider_id!r} without its state cookie: "
            "no federated sign-out started in this browser, it was completed already, or "
            f"it took more than {CHECK_MAX_AGE // 60} minutes"
        )
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise BadRequest(
            f"The state of the return from signing out of {ctx.provider_id!r} does not "
            "match its cookie"
        )
    return InternalResponse(redirect=ctx.callback_url)
