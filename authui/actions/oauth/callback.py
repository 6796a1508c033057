"""The callback: the provider's answer checked, the code exchanged, the profile read."""

from __future__ import annotations

import hmac
import inspect
import json
from dataclasses import dataclass
from typing import Any

import httpx

from authui.actions.oauth import checks
from authui.actions.oauth.authorize import active_checks, proxy_callback, redirect_uri
from authui.callbacks import invoke_positional
from authui.context import Context
from authui.errors import InvalidCheck, OAuthCallbackError, OAuthProfileParseError
from authui.jwt import JWTDecodeError, decode
from authui.oauth.discovery import Endpoints
from authui.oauth.http import ProviderHTTPError, fetch, fetch_json
from authui.oauth.tokens import TokenError, exchange_code, id_token_claims
from authui.providers.oauth import OAuthProvider, Profile, TokenSet, UserinfoCall
from authui.urls import origin_of, with_query


@dataclass(frozen=True, slots=True)
class Authorized:
    """A finished provider round trip.

    Attributes:
        user: The user from ``profile()``, its ``id`` still the provider's account id,
            its email lower-cased.
        account: The token set with ``provider``, ``type`` and ``providerAccountId``.
        profile: The provider's profile (id_token claims or userinfo).
    """

    user: dict[str, Any]
    account: dict[str, Any]
    profile: Profile


def callback_params(ctx: Context) -> dict[str, str]:
    """The provider's answer: the query, or the form of a ``form_post`` callback."""
    params = dict(ctx.query)
    if ctx.method == "POST":
        params.update((k, v) for k, v in ctx.body.items() if isinstance(v, str))
    return params


def forward_from_proxy(ctx: Context, provider: OAuthProvider) -> str | None:
    """On the redirect proxy: the deployment's callback URL (with the provider's answer)
    that this callback belongs to, or ``None`` when it belongs here.

    Raises:
        InvalidCheck: The ``state`` cannot be decrypted (the proxy and the deployment
            must share the secret).
    """
    proxy = proxy_callback(ctx, provider)
    params = callback_params(ctx)
    if proxy is None or origin_of(proxy) != ctx.origin or not params.get("state"):
        return None
    try:
        data = decode(token=params["state"], secret=ctx.options.keys, salt=checks.STATE_SALT)
    except JWTDecodeError as exc:
        raise InvalidCheck(
            "The redirect proxy cannot decrypt the state: the proxy and the deployment that "
            "started the sign-in must share AUTH_SECRET",
            cause={"err": exc},
        ) from exc
    origin = (data or {}).get("origin")
    if not isinstance(origin, str) or origin_of(origin) == origin_of(proxy):
        return None
    return with_query(origin, params)


async def complete(ctx: Context, provider: OAuthProvider) -> Authorized:
    """Check the provider's answer against the sign-in's cookies, exchange the code, and
    map the profile.

    Raises:
        InvalidCheck: ``state``, PKCE or ``nonce`` cookie or value wrong, or ``iss`` is
            not the provider's issuer.
        OAuthCallbackError: The provider answered with an error (e.g. consent denied).
        OAuthProfileParseError: ``profile()`` failed or gave no id.
        TokenError, ProviderHTTPError, DiscoveryError, httpx.HTTPError: The provider's
            endpoints failed; the caller reports them.
    """
    params = callback_params(ctx)
    active = active_checks(ctx, provider)
    checks.spend(ctx, provider, active)
    if "state" in active:
        expected = checks.consume(ctx, provider, "state")
        if not hmac.compare_digest(params.get("state", "").encode(), expected.encode()):
            raise InvalidCheck(
                "The state parameter does not match the state cookie: the callback URL was "
                "altered, or belongs to another sign-in"
            )
    need = ("token", "userinfo") if _needs_userinfo(provider) else ("token",)
    found = await ctx.options.discovery.endpoints(provider, need=need)
    _check_issuer(params, found, provider)
    if params.get("error"):
        description = params.get("error_description", "")
        raise OAuthCallbackError(
            f"{provider.id} answered error={params['error']!r} {description}".strip(),
            cause={"provider": provider.id, "error": params["error"]},
        )
    code = params.get("code")
    if not code:
        raise OAuthCallbackError(f"The callback from {provider.id} carries no code")
    verifier = checks.consume(ctx, provider, "pkce_code_verifier") if "pkce" in active else None
    nonce = checks.consume(ctx, provider, "nonce") if "nonce" in active else None
    tokens = await exchange_code(
        provider, found, code=code, redirect_uri=redirect_uri(ctx, provider), code_verifier=verifier
    )
    profile = await _profile(ctx, provider, found, tokens, nonce)
    if isinstance(params.get("user"), str):
        try:  # Apple sends the user's name once, in the form_post, as JSON
            profile["user"] = json.loads(params["user"])
        except ValueError:
            ctx.options.logger.debug(f"{provider.id}: ignored a `user` field that is not JSON")
    return await _authorized(ctx, provider, profile, tokens)


PROFILE_CLAIMS = ("email", "name")
"""An id_token without these (many providers keep them to userinfo unless asked) is
completed from the userinfo endpoint."""


def _needs_userinfo(provider: OAuthProvider) -> bool:
    return provider.userinfo.request is None and (provider.type == "oauth" or not provider.id_token)


def _check_issuer(params: dict[str, str], found: Endpoints, provider: OAuthProvider) -> None:
    """RFC 9207: an ``iss`` in the answer must be the provider's issuer."""
    iss = params.get("iss")
    issuer = found.issuer or provider.issuer
    if iss is None or issuer is None or "{tenantid}" in issuer:
        return
    if iss.rstrip("/") != issuer.rstrip("/"):
        raise InvalidCheck(
            f"The callback's iss {iss!r} is not {provider.id}'s issuer {issuer!r} (RFC 9207): "
            "the answer comes from another authorization server (a mix-up attack), or the "
            "provider's issuer setting is wrong"
        )


async def _profile(
    ctx: Context, provider: OAuthProvider, found: Endpoints, tokens: TokenSet, nonce: str | None
) -> Profile:
    if provider.type == "oauth":
        return await _userinfo(provider, found, tokens)
    claims = await id_token_claims(
        provider, found, tokens, nonce=nonce, discovery=ctx.options.discovery
    )
    if provider.id_token and all(claims.get(name) for name in PROFILE_CLAIMS):
        return claims
    if provider.id_token and provider.userinfo.request is None and not found.userinfo:
        return claims
    try:
        profile = await _userinfo(provider, found, tokens)
    except (ProviderHTTPError, httpx.HTTPError) as exc:
        if not provider.id_token:
            raise
        ctx.options.logger.debug(
            f"{provider.id}: the id_token lacks {'/'.join(PROFILE_CLAIMS)} and userinfo "
            f"failed ({exc}); signing in with the id_token's claims only"
        )
        return claims
    if profile.get("sub") != claims.get("sub"):
        raise TokenError("The userinfo's sub is not the id_token's")
    return {**claims, **profile} if provider.id_token else profile


def _call(provider: OAuthProvider, tokens: TokenSet, userinfo: str | None = None) -> UserinfoCall:
    async def send(request: httpx.Request) -> httpx.Response:
        return await fetch(provider, request)

    return UserinfoCall(tokens=tokens, provider=provider, fetch=send, userinfo_url=userinfo)


async def _userinfo(provider: OAuthProvider, found: Endpoints, tokens: TokenSet) -> Profile:
    if provider.userinfo.request is not None:
        return dict(await provider.userinfo.request(_call(provider, tokens, found.userinfo)))
    request = httpx.Request(
        "GET",
        found.userinfo or "",
        headers={
            "Authorization": f"Bearer {tokens['access_token']}",
            "Accept": "application/json",
        },
    )
    return await fetch_json(provider, request, "The userinfo endpoint")


async def _authorized(
    ctx: Context, provider: OAuthProvider, profile: Profile, tokens: TokenSet
) -> Authorized:
    try:
        mapped = await invoke_positional(provider.profile, profile, tokens, _call(provider, tokens))
    except Exception as exc:
        raise OAuthProfileParseError(
            f"{provider.id}: profile() failed", cause={"err": exc, "provider": provider.id}
        ) from exc
    if inspect.isawaitable(mapped):
        mapped = await mapped
    if not isinstance(mapped, dict) or mapped.get("id") in (None, ""):
        raise OAuthProfileParseError(
            f"{provider.id}: profile() must return a mapping with the account's id"
        )
    user = {k: v for k, v in mapped.items() if v is not None}
    account_id = str(user["id"])
    email = user.get("email")
    user["email"] = email.lower() if isinstance(email, str) and email else None
    account = {
        **tokens,
        "provider": provider.id,
        "type": provider.type,
        "providerAccountId": account_id,
    }
    return Authorized(user={**user, "id": account_id}, account=account, profile=profile)
