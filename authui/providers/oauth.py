"""OAuth 2 and OpenID Connect providers: what a provider declares, and the two factories.

A provider is data: endpoints, scopes, checks, how the client authenticates, and how its
profile becomes a user. The flow that uses it lives in ``authui.oauth``. Built-in providers
(``authui.providers.github.GitHub`` …) are factories that fill these fields with a
service's facts; keyword arguments override them, endpoint ``params`` merged key by key.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from authui.providers.base import Provider, ProviderStyle

if TYPE_CHECKING:
    import httpx

Check = Literal["pkce", "state", "nonce", "none"]
"""A protection of the authorization round trip, each kept in its own cookie."""

ClientAuthMethod = Literal[
    "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt", "none"
]
"""How the client proves itself at the token endpoint (RFC 6749 §2.3, RFC 7523)."""

CustomFetch = Callable[["httpx.Request"], Awaitable["httpx.Response"]]
"""Sends one of the provider's requests (discovery, JWKS, token, userinfo) and returns
the response: for proxies, extra headers, logging, or a stand-in of the service in tests."""

Profile = dict[str, Any]
"""What the provider says about the user: id_token claims or the userinfo JSON."""

TokenSet = dict[str, Any]
"""The token endpoint's answer, normalised: ``access_token``, ``token_type`` (lower case),
``expires_at`` (from ``expires_in``), ``refresh_token``, ``id_token``, ``scope`` …"""

ProfileMapper = Callable[..., "dict[str, Any] | Awaitable[dict[str, Any]]"]
"""``profile(profile, tokens[, call])`` → the user: ``id`` (the account id at the provider),
``name``, ``email``, ``image`` and anything else worth keeping in callbacks. A function
taking a third parameter gets a ``UserinfoCall``, to fetch more (e.g. a photo)."""

AccountMapper = Callable[[TokenSet], "dict[str, Any] | None"]
"""``account(tokens)`` → the token fields stored with the linked account."""

UserinfoRequest = Callable[["UserinfoCall"], Awaitable[Profile]]
"""A custom userinfo request for services whose profile is not one GET with a bearer token."""

TokenConform = Callable[[dict[str, Any]], dict[str, Any]]
"""Repairs a service's non-standard token response JSON before it is checked."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Endpoint:
    """One of a provider's endpoints.

    Attributes:
        url: The endpoint's URL; ``None`` to take it from discovery (``issuer``).
        params: For ``authorization``: query parameters sent with the user to the service
            (``scope``, ``prompt``, ``login_hint`` …; a mapping value is sent as JSON).
        request: For ``userinfo``: a custom request that returns the profile.
        conform: For ``token``: repairs a non-standard token response.
    """

    url: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    request: UserinfoRequest | None = None
    conform: TokenConform | None = None


@dataclass(frozen=True, slots=True)
class UserinfoCall:
    """What a custom userinfo request gets.

    Attributes:
        tokens: The token set (``tokens["access_token"]`` …).
        provider: The provider.
        fetch: Sends an ``httpx.Request`` the way every request of this provider goes
            (through ``custom_fetch`` when set) and returns the response.
        userinfo_url: The userinfo endpoint, as configured or discovered (``None`` when
            the provider has none, and in ``profile``).
    """

    tokens: TokenSet
    provider: OAuthProvider
    fetch: Callable[[httpx.Request], Awaitable[httpx.Response]]
    userinfo_url: str | None = None

    async def get_json(self, url: str, **headers: str) -> Any:
        """GET ``url`` with the access token as bearer; the JSON body.

        Raises:
            httpx.HTTPStatusError: The service answered with an error status.
        """
        return await self.send_json("GET", url, headers=headers)

    async def send_json(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        json: Any = None,
    ) -> Any:
        """Send a request with the access token as bearer and return its JSON body.

        Raises:
            httpx.HTTPStatusError: The service answered with an error status.
        """
        import httpx

        sent = {
            "Authorization": f"Bearer {self.tokens['access_token']}",
            "Accept": "application/json",
            **(headers or {}),
        }
        answer = await self.fetch(httpx.Request(method, url, headers=sent, json=json))
        answer.raise_for_status()
        return answer.json()


def default_profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    """``id`` ← ``sub``/``id``, ``name`` ← ``name``/``nickname``/``preferred_username``,
    ``email``, ``image`` ← ``picture``; unset values left out."""
    user = {
        "id": _first(profile, "sub", "id"),
        "name": _first(profile, "name", "nickname", "preferred_username"),
        "email": profile.get("email"),
        "image": profile.get("picture"),
    }
    return {key: value for key, value in user.items() if value is not None}


ACCOUNT_FIELDS = (
    "access_token",
    "id_token",
    "refresh_token",
    "expires_at",
    "scope",
    "token_type",
    "session_state",
)
"""The token fields the default ``account`` keeps."""


def default_account(tokens: TokenSet) -> dict[str, Any]:
    """Keep ``ACCOUNT_FIELDS`` of the token set."""
    return {key: tokens[key] for key in ACCOUNT_FIELDS if tokens.get(key) is not None}


def email_verified_claim(profile: Profile) -> bool:
    """The OpenID ``email_verified`` claim, ``true`` or Apple's ``"true"``."""
    return profile.get("email_verified") in (True, "true")


def _first(profile: Profile, *keys: str) -> Any:
    return next((profile[k] for k in keys if profile.get(k) is not None), None)


@dataclass(frozen=True, slots=True, kw_only=True)
class OAuthProvider(Provider):
    """An OAuth 2 (``type="oauth"``) or OpenID Connect (``type="oidc"``) provider.

    Attributes:
        client_id: The client id registered with the service (``AUTH_<ID>_ID``).
        client_secret: Its secret (``AUTH_<ID>_SECRET``); unset for public clients.
        issuer: The issuer URL (``AUTH_<ID>_ISSUER``). Endpoints left unset are
            discovered from ``<issuer>/.well-known/openid-configuration``, and an ``iss``
            in the callback (RFC 9207) must equal it.
        default_issuer: ``issuer`` is a built-in's default for a multi-tenant service
            (Microsoft's ``common``), which ``AUTH_<ID>_ISSUER`` may replace; giving
            ``issuer=`` yourself turns it off.
        authorization: Where the user is sent, with its ``params``.
        token: Where the code is exchanged for tokens.
        userinfo: Where the profile comes from (plain OAuth, or OIDC with
            ``id_token=False``).
        checks: Protections of the round trip: ``pkce`` (S256), ``state``, ``nonce``.
        client_auth: How the client authenticates at the token endpoint.
        client_private_key: For ``private_key_jwt``: a private JWK (mapping) or PEM.
        id_token: OIDC only: take the profile from the id_token's claims (``True``) or
            from userinfo (``False``, for services whose id_token is thin).
        profile: Maps the provider's profile to a user; see ``ProfileMapper``.
        account: Chooses the token fields stored with the account.
        email_verified: Says whether the profile vouches for its email address; linking
            by email (``allow_dangerous_email_account_linking``) needs it.
        allow_dangerous_email_account_linking: Sign a user whose email matches a stored
            user in as that user (only when ``email_verified``). Off by default: whoever
            controls the address at this provider would take over the account.
        redirect_proxy_url: Callback through a stable deployment that forwards to this
            one (preview deployments); defaults to ``AuthConfig.redirect_proxy_url``.
        custom_fetch: Replaces the HTTP client for this provider's requests.
        options: Service-specific settings of a built-in provider, e.g. a tenant.
        federated_logout: Sign the user out of the provider too (OpenID Connect
            RP-Initiated Logout 1.0). A sign-in keeps what that needs (the id_token, its
            ``sid``) in the sealed ``authui.federated`` cookie; a sign-out that asks for
            it (``federated=1``; the built-in sign-out page does) then sends the browser
            to the ``end_session_endpoint`` of the provider's discovery document, which
            comes back to ``<base>/signout/<id>``: register that URL with the provider as
            a post-logout redirect URI. Off by default, as in Auth.js, whose sign-out
            ends the app's session only.
        revocation: The token revocation endpoint (RFC 7009), where the account center
            revokes an account's tokens when the user unlinks it; by default the
            discovery document's ``revocation_endpoint``. Without either, unlinking
            forgets the tokens without revoking them.
    """

    type: Literal["oauth", "oidc"] = "oauth"
    client_id: str | None = None
    client_secret: str | None = None
    issuer: str | None = None
    default_issuer: bool = False
    authorization: Endpoint = field(default_factory=Endpoint)
    token: Endpoint = field(default_factory=Endpoint)
    userinfo: Endpoint = field(default_factory=Endpoint)
    checks: tuple[Check, ...] = ("pkce",)
    client_auth: ClientAuthMethod = "client_secret_basic"
    client_private_key: Mapping[str, Any] | str | None = None
    id_token: bool = True
    profile: ProfileMapper = default_profile
    account: AccountMapper = default_account
    email_verified: Callable[[Profile], bool] = email_verified_claim
    allow_dangerous_email_account_linking: bool = False
    redirect_proxy_url: str | None = None
    custom_fetch: CustomFetch | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    federated_logout: bool = False
    revocation: str | None = None


_ENDPOINTS = frozenset({"authorization", "token", "userinfo"})


def _merged_endpoint(default: Endpoint, given: Endpoint | Mapping[str, Any] | str) -> Endpoint:
    if isinstance(given, str):
        return Endpoint(url=given)
    fields = (
        {f.name: getattr(given, f.name) for f in dataclasses.fields(given)}
        if isinstance(given, Endpoint)
        else dict(given)
    )
    unknown = set(fields) - {f.name for f in dataclasses.fields(Endpoint)}
    if unknown:
        raise TypeError(f"Unknown endpoint settings: {sorted(unknown)}")
    return Endpoint(
        url=fields.get("url") or default.url,
        params={**default.params, **(fields.get("params") or {})},
        request=fields.get("request") or default.request,
        conform=fields.get("conform") or default.conform,
    )


def _merged_style(default: ProviderStyle | None, given: ProviderStyle | None) -> ProviderStyle:
    base = default or ProviderStyle()
    if given is None:
        return base
    return ProviderStyle(
        **{f.name: getattr(given, f.name) or getattr(base, f.name) for f in fields(ProviderStyle)}
    )


P = TypeVar("P", bound="OAuthProvider")
"""A class of provider ``with_overrides`` makes."""


@overload
def with_overrides(defaults: Mapping[str, Any], overrides: Mapping[str, Any]) -> OAuthProvider: ...


@overload
def with_overrides(
    defaults: Mapping[str, Any], overrides: Mapping[str, Any], kind: type[P]
) -> P: ...


def with_overrides(
    defaults: Mapping[str, Any],
    overrides: Mapping[str, Any],
    kind: type[OAuthProvider] = OAuthProvider,
) -> OAuthProvider:
    """A provider of class ``kind`` (an ``OAuthProvider`` with a built-in's own fields or
    quirks) from a built-in's ``defaults`` and the user's ``overrides``.

    Endpoints merge: a string replaces the URL (and drops the default params); an
    ``Endpoint`` or mapping keeps what it leaves unset and merges ``params`` key by key.
    ``style`` merges field by field, ``options`` key by key. Everything else, lists
    included, is replaced. ``None`` values are ignored.

    Raises:
        TypeError: An override names no provider setting.
    """
    known = {f.name for f in dataclasses.fields(kind)}
    unknown = set(overrides) - known
    if unknown:
        raise TypeError(f"Unknown provider settings: {sorted(unknown)}")
    merged = dict(defaults)
    for key, value in overrides.items():
        if value is None:
            continue
        if key in _ENDPOINTS:
            merged[key] = _merged_endpoint(defaults.get(key) or Endpoint(), value)
        elif key == "style":
            merged[key] = _merged_style(defaults.get("style"), value)
        elif key == "options":
            merged[key] = {**defaults.get("options", {}), **value}
        elif key == "checks":
            merged[key] = tuple(value)
        elif key == "issuer":
            merged.update(issuer=value, default_issuer=False)
        else:
            merged[key] = value
    for key in _ENDPOINTS & set(merged):
        if isinstance(merged[key], str | Mapping):
            merged[key] = _merged_endpoint(Endpoint(), merged[key])
    return kind(**merged)


def OAuth2(*, id: str, name: str | None = None, **settings: Any) -> OAuthProvider:
    """A plain OAuth 2 provider: give the ``authorization``, ``token`` and ``userinfo``
    endpoints (each a URL or an ``Endpoint``), or an ``issuer`` whose discovery document
    has them.

    Unlike Auth.js, no ``openid profile email`` scope is added to a plain OAuth
    provider's request: set ``authorization=Endpoint(params={"scope": …})`` yourself.
    """
    return with_overrides({"id": id, "name": name or id, "type": "oauth"}, settings)


def OIDC(
    *,
    id: str,
    name: str | None = None,
    issuer: str | None = None,
    **settings: Any,
) -> OAuthProvider:
    """An OpenID Connect provider found by discovery from ``issuer``.

    The scope defaults to ``openid profile email`` and the checks to PKCE, ``state`` and
    ``nonce`` (Auth.js checks PKCE only). ``state`` and ``nonce`` are part of OpenID
    Connect; a provider without PKCE support ignores the challenge, or refuses it: then
    pass ``checks=("state", "nonce")``.
    """
    defaults: dict[str, Any] = {
        "id": id,
        "name": name or id,
        "type": "oidc",
        "issuer": issuer,
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "checks": ("pkce", "state", "nonce"),
    }
    return with_overrides(defaults, settings)


def stable_user_id(provider_id: str, account_id: str) -> str:
    """The user id of an OAuth sign-in without an adapter: the same on every sign-in with
    the same account (Auth.js makes a random one each time)."""
    return str(uuid.uuid5(_NAMESPACE, f"{provider_id}\x00{account_id}"))


_NAMESPACE = uuid.UUID("6f1c1e0e-3b5a-5d2a-9c55-61757468756a")
