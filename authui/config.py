"""Configuration: ``AuthConfig`` and its parts, all frozen dataclasses.

Field names are the Python spelling of the Auth.js options (``basePath`` → ``base_path``).
A config is immutable: ``set_env_defaults`` returns a new one. Build it once at start-up
and pass the same object to every ``authui.Auth`` call; everything derived from it
(keys, provider table, cookie names) is computed once per config object.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from typing import Any, Literal

from jinja2 import Environment

from authui.cookies import CookieOverride
from authui.logger import Logger
from authui.providers.base import Provider
from authui.throttle import Limit, Throttle

Maybe = Awaitable[Any] | Any
Callback = Callable[..., Any]
"""A callback or event handler: a function or coroutine function taking keyword arguments.

authui passes only the keyword arguments a function declares (or all of them to one taking
``**kwargs``), so ``def jwt(token, user=None): …`` is a valid ``jwt`` callback.
"""

SessionStrategy = Literal["jwt", "database"]


class Raw(enum.Enum):
    """Type of ``raw``."""

    raw = "raw"


class SkipCSRFCheck(enum.Enum):
    """Type of ``skip_csrf_check``."""

    skip_csrf_check = "skip_csrf_check"


raw = Raw.raw
"""Set ``AuthConfig(raw=raw)`` to get an ``InternalResponse`` (for
framework authors)."""

skip_csrf_check = SkipCSRFCheck.skip_csrf_check
"""Set ``AuthConfig(skip_csrf_check=skip_csrf_check)`` to turn CSRF checks off. Only for
framework integrations that check CSRF themselves."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionOptions:
    """How sessions are kept.

    Attributes:
        strategy: ``"jwt"`` (an encrypted cookie) or ``"database"`` (a token in the cookie,
            the session in the adapter). Defaults to ``"database"`` with an adapter,
            ``"jwt"`` without.
        max_age: Seconds of inactivity after which a session expires (30 days).
        update_age: Extend the session's expiry at most this often, in seconds (1 day); 0
            extends it on every check. Database sessions update their row, JWT sessions
            re-issue their cookie (also whenever the ``jwt`` callback changed the token).
        generate_session_token: Makes database session tokens (default: a random UUID).
    """

    strategy: SessionStrategy | None = None
    max_age: int = 30 * 24 * 60 * 60
    update_age: int = 24 * 60 * 60
    generate_session_token: Callable[[], str] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class JWTOptions:
    """JWT session options.

    Attributes:
        max_age: Lifetime of an issued JWT in seconds; defaults to ``session.max_age``.
        encode: Replaces ``authui.jwt.encode``; called with ``token``, ``secret``,
            ``salt`` and ``max_age`` keywords, may be async.
        decode: Replaces ``authui.jwt.decode``; called with ``token``, ``secret`` and
            ``salt``, may be async.
        provider_tokens: Keep the OAuth provider's tokens of the sign-in in the JWT
            (``provider``, ``access_token``, ``expires_at``, ``refresh_token``, the names
            of Auth.js's refresh-token guide), so that ``get_access_token`` works without
            an adapter; a refresh re-issues the cookie, and one that fails puts
            ``error: "RefreshTokenError"`` in the token and the session. Off by default:
            the tokens make the cookie larger.
    """

    max_age: int | None = None
    encode: Callback | None = None
    decode: Callback | None = None
    provider_tokens: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Pages:
    """Paths of your own pages, replacing the built-in ones (``"/login"``, …).

    ``new_user`` is where a user goes after the sign-in that created them: authui's welcome
    page by default (``None``), your page (a path), or ``False`` for none, so that new
    users go straight to the callback URL as Auth.js sends them when ``pages.newUser`` is
    not set.
    """

    sign_in: str | None = None
    sign_out: str | None = None
    error: str | None = None
    verify_request: str | None = None
    new_user: str | Literal[False] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Theme:
    """The look of the built-in pages.

    Attributes:
        pack: The theme pack: ``"default"``, ``"base"`` (unstyled, semantic), ``"terminal"``,
            or one installed through the ``authui.themes`` entry point group.
        color_scheme: ``"auto"`` follows the browser's preference.
        logo: URL of a logo shown on every page.
        brand_color: CSS colour of buttons and links.
        button_text: CSS colour of button text.
        template_dirs: Folders searched before the pack, so that
            ``<folder>/authui/signin.html`` replaces the pack's sign-in page.
        environment: The app's own Jinja environment, searched before ``template_dirs``
            and the pack, whose filters, tests and globals the pages can use. The Quart
            integration passes the app's (``app.jinja_env``).
        remember_last_used: Mark the provider this browser last signed in with on the
            built-in sign-in page ("Last used"), kept in the ``authui.last-used`` cookie
            (no server state). Not set when ``pages.sign_in`` is your own page; turn it
            off for exactly Auth.js's cookies on a sign-in.
    """

    pack: str = "default"
    color_scheme: Literal["auto", "dark", "light"] = "auto"
    logo: str = ""
    brand_color: str = ""
    button_text: str = ""
    template_dirs: Sequence[str] = ()
    environment: Environment | None = None
    remember_last_used: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class Callbacks:
    """Functions that decide what happens during sign-in and session checks.

    Each may be sync or async and receives keyword arguments (see ``Callback``).

    Attributes:
        jwt: ``(token, user, account, profile, trigger, is_new_user, session)`` → the JWT
            to store, or ``None`` to end the session. Called at sign-in (``trigger`` is
            ``"signIn"`` or ``"signUp"``), on every session check, and on an update
            (``trigger="update"``, with the client's data in ``session``: validate it).
        session: ``(session, token, user, new_session, trigger)`` → what the session
            endpoint returns. By default only name, email and image are exposed.
        sign_in: ``(user, account, profile, email, credentials)`` → ``True`` to go on,
            ``False`` to refuse (``AccessDenied``), or a URL to redirect to instead.
        redirect: ``(url, base_url)`` → the URL to send the user to after sign-in or
            sign-out. The default allows only the site's own origin.
        authorized: ``(auth, request)`` → used by integrations to protect views.
    """

    jwt: Callback | None = None
    session: Callback | None = None
    sign_in: Callback | None = None
    redirect: Callback | None = None
    authorized: Callback | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Events:
    """Audit hooks, called with keyword arguments; failures are logged and swallowed.

    Attributes:
        sign_in: ``(user, account, profile, is_new_user)``.
        sign_out: ``(token)`` for JWT sessions, ``(session)`` for database sessions.
        create_user: ``(user)``.
        update_user: ``(user)``.
        link_account: ``(user, account, profile)``.
        session: ``(session, token)`` on every session check.
        unlink_account: ``(user, account)``: an account was unlinked in the account
            center (authui's; Auth.js has no such event).
        delete_user: ``(user)``: a user deleted their account (authui's).
        activity: ``(event)``: anything the account's security activity records (a
            ``SecurityEvent``: sign-ins, refused and throttled ones, passkeys, accounts,
            email changes, sessions ended), whether or not the adapter stores them.
    """

    sign_in: Callback | None = None
    sign_out: Callback | None = None
    create_user: Callback | None = None
    update_user: Callback | None = None
    link_account: Callback | None = None
    session: Callback | None = None
    unlink_account: Callback | None = None
    delete_user: Callback | None = None
    activity: Callback | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class AccountOptions:
    """The account center: the pages under ``<base>/account`` where a signed-in user manages
    their own account (``docs/how-to/account-center.md``). They need an adapter.

    Attributes:
        enabled: Serve the pages (and their JSON and Python actions). Off, every
            ``<base>/account`` URL is answered as an unknown action is (400, logged).
        reauthenticate_after: Seconds after a sign-in during which the sensitive actions
            (changing the email address, unlinking an account, deleting a passkey, signing
            other sessions out, deleting the account) run without asking the user to sign
            in again (step-up). The session records when the user last signed in
            (``auth_time``) and how (``amr``).
        allow_email_change: Offer the change of email address (a link to the new address
            confirms it). Needs an email provider to send the link.
        allow_delete: Offer the deletion of the account.
        notify_new_browser: Email the user when they sign in from a browser that has not
            signed in as them before (needs an email provider to send it).
        known_browser_days: How long a browser is remembered as known (its signed
            ``authui.known-browser`` cookie), in days.
    """

    enabled: bool = True
    reauthenticate_after: int = 10 * 60
    allow_email_change: bool = True
    allow_delete: bool = True
    notify_new_browser: bool = False
    known_browser_days: int = 400


MfaPolicy = Callable[..., Awaitable[bool | None] | bool | None]
"""``policy(user, provider, account, enrolled)`` → ``True``: this sign-in needs a second
factor (a user without one is sent to set one up once signed in); ``False``: it does not;
``None``: the default rule (``MfaOptions``). ``user`` is the user mapping, ``provider`` the
first factor's provider id, ``account`` the sign-in's account mapping, ``enrolled``
whether the user has a second factor."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MfaOptions:
    """Multi-factor authentication (``docs/how-to/mfa.md``): second factors a user sets up
    in the account center, asked for after the first sign-in step, before the session.

    By default a user with a second factor is asked for it after every sign-in but a
    passkey's (a passkey that verified its user is two factors already), unless they chose
    to trust the browser. ``policy`` decides otherwise per user or per provider.

    Attributes:
        enabled: Offer second factors (the account center's two-factor page and the
            challenge). Off, nobody is asked, even users who set one up.
        issuer: The name authenticator apps show beside the account; the site's host
            by default.
        trust_days: Days a browser the user chose to trust skips the challenge
            (``authui.trusted-browser``, revocable in the account center); ``0`` removes
            the choice.
        passkeys: Passkeys may be the second factor (the WebAuthn provider must be
            configured).
        policy: See ``MfaPolicy``.
        attempts: Codes a user may try (TOTP or recovery, right or wrong) per window,
            counted by the shared counters across every browser.
    """

    enabled: bool = True
    issuer: str | None = None
    trust_days: int = 30
    passkeys: bool = True
    policy: MfaPolicy | None = None
    attempts: Limit = field(default_factory=lambda: Limit(5, 300))


@dataclass(frozen=True, slots=True, kw_only=True)
class Experimental:
    """Experimental features; each logs a warning when on."""

    enable_webauthn: bool = False


@dataclass(frozen=True, slots=True, kw_only=True, eq=False, weakref_slot=True)
class AuthConfig:
    """Everything authui needs to know about your app's authentication.

    Attributes:
        providers: The ways to sign in, in the order the sign-in page lists them.
        secret: A random string of at least 32 characters, or a list with the newest
            first to rotate. Defaults to ``AUTH_SECRET`` (see ``set_env_defaults``).
        adapter: The data layer for users, accounts and database sessions: an adapter
            object, or a database URL (``"sqlite+aiosqlite:///app.db"``, a PostgreSQL or
            MySQL URL, ``"redis://…"``).
        base_path: Where the routes live (``/auth``).
        url: The public URL of the auth routes (``AUTH_URL``). When set, its origin is used
            instead of the request's host, which makes the Host header irrelevant.
        trust_host: Trust the request's host for building URLs. Needed when ``url`` is not
            set; only safe when a proxy or the server sets the host, or with
            ``trusted_hosts``.
        trusted_hosts: The hosts the app answers for (``AUTH_TRUSTED_HOSTS``, comma-
            separated): ``example.com``, ``.example.com`` for it and its subdomains,
            ``example.com:8443`` for one port only. A request for any other host is
            answered with 400 and nothing is built from it. Listing hosts trusts them:
            ``trust_host`` need not be set.
        trusted_proxies: How many proxies stand in front of the app
            (``AUTH_TRUSTED_PROXIES``). With ``n``, the ``n``-th entry from the right of
            ``X-Forwarded-For``, ``X-Forwarded-Host`` and ``X-Forwarded-Proto`` is believed
            (Werkzeug's ``ProxyFix`` count); with 0, those headers are ignored.
        use_secure_cookies: ``__Secure-`` cookies with the ``Secure`` flag; defaults to
            whether the request is HTTPS.
        session: Session strategy and lifetimes.
        jwt: JWT session options.
        callbacks: Control hooks.
        events: Audit hooks.
        pages: Your own pages instead of the built-in ones.
        theme: The look of the built-in pages.
        cookies: Overrides of cookie names and attributes, keyed by ``session_token``,
            ``callback_url``, ``csrf_token``, ``pkce_code_verifier``, ``state``, ``nonce``,
            ``webauthn_challenge``, ``last_used``, ``federated``, ``logout_state``,
            ``refresh_error``, ``step_up``, ``known_browser``, ``mfa_pending``,
            ``mfa_enrolment``, ``trusted_browser`` or ``locale``.
        redirect_proxy_url: Base URL of a redirect proxy for OAuth callbacks
            (``AUTH_REDIRECT_PROXY_URL``).
        debug: Log debug messages (they include user data; not for production).
        logger: Where messages go: an object with some of the levels of
            ``authui.logger.FullLogger`` (``error``, ``warn``, ``debug``, ``info``,
            ``warning``); the levels it lacks, or all without one, go to the ``authui``
            Python logger.
        development: Development mode: without a secret, use one random secret per process
            (``authui.options.development_secret()``, shared by every configuration of the
            process; loudly) instead of refusing to start.
        experimental: Experimental features.
        skip_csrf_check: ``skip_csrf_check`` turns CSRF checks off (integrations only).
        raw: ``raw`` makes ``authui.Auth`` return an
            ``InternalResponse`` (integrations only).
        max_body_size: Larger request bodies are refused with 413.
        throttle: Limits on sign-in attempts per account and per client (see
            ``authui.throttle.Throttle``); ``None`` turns them off.
        account: The account center's pages and what they offer.
        mfa: Second factors (TOTP, recovery codes, passkeys) after the first sign-in.
        locales: The languages the pages, emails and messages speak, as BCP 47 tags in
            the order the language menu lists them (``["en", "de"]``); ``None`` for every
            locale authui ships (``authui.i18n.SHIPPED``). Each request gets one of them:
            the one it picked with the menu, else the best match of its
            ``Accept-Language``, else ``default_locale``.
        default_locale: The language of a request that prefers none of ``locales``.
        translations: The app's own catalogues (a folder, or several, the first winning)
            holding ``<locale>/LC_MESSAGES/authui.po`` or ``.mo``: their messages replace
            authui's, and a locale authui does not ship can be added there.
    """

    providers: Sequence[Provider] = ()
    secret: str | Sequence[str] | None = None
    adapter: Any = None
    base_path: str | None = None
    url: str | None = None
    trust_host: bool | None = None
    trusted_hosts: Sequence[str] = ()
    trusted_proxies: int = 0
    use_secure_cookies: bool | None = None
    session: SessionOptions = field(default_factory=SessionOptions)
    jwt: JWTOptions = field(default_factory=JWTOptions)
    callbacks: Callbacks = field(default_factory=Callbacks)
    events: Events = field(default_factory=Events)
    pages: Pages = field(default_factory=Pages)
    theme: Theme = field(default_factory=Theme)
    cookies: Mapping[str, CookieOverride] = field(default_factory=dict)
    redirect_proxy_url: str | None = None
    debug: bool = False
    logger: Logger | None = None
    development: bool = False
    experimental: Experimental = field(default_factory=Experimental)
    skip_csrf_check: SkipCSRFCheck | None = None
    raw: Raw | None = None
    max_body_size: int = 64 * 1024
    throttle: Throttle | None = field(default_factory=Throttle)
    account: AccountOptions = field(default_factory=AccountOptions)
    mfa: MfaOptions = field(default_factory=MfaOptions)
    locales: Sequence[str] | None = None
    default_locale: str = "en"
    translations: str | PathLike[str] | Sequence[str | PathLike[str]] = ()
    resolved: Any = field(default=None, init=False, repr=False, compare=False)
    """What this configuration resolves to (``authui.options.resolve``), made at its first
    use and kept on the object: one configuration, one resolution (one renderer, one
    adapter, one set of caches): an ``authui.options.Options``, typed loosely here as the
    configuration sits below what it resolves to. ``dataclasses.replace`` gives a new
    configuration, which resolves anew."""
