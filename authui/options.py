"""What a configuration resolves to, computed once per ``AuthConfig`` object and kept on it.

Everything request-independent hangs here: the provider table, cookie names, the page
renderer, the adapter made from a URL, and the caches of what the configuration derives
(session-token keys and recently decrypted tokens, OpenID discovery documents and key sets,
the in-process throttle counts). Nothing of it lives in a module-level registry.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from authui.adapters.base import OPTIONAL_METHODS, AdapterCalls
from authui.adapters.from_url import adapter_from_url
from authui.callbacks import default_jwt, default_session, default_sign_in
from authui.checks import (
    ConfigCheck,
    host_errors,
    session_strategy,
    static_check,
    unserved_features,
)
from authui.config import AuthConfig, Theme
from authui.cookies import CookieTable, cookie_table
from authui.env import DEFAULT_BASE_PATH, set_env_defaults
from authui.errors import AuthError, InvalidProvider, ServiceUnavailable
from authui.hosts import HostRule, host_rules
from authui.i18n import SHIPPED, Language, Languages
from authui.i18n.languages import configured_languages, translation_folders
from authui.jwt import DECRYPTED_CACHE_SIZE, KeyRing
from authui.logger import FilteredLogger, FullLogger, StandardLogger, show_debug_output
from authui.oauth.discovery import DiscoveryCache
from authui.pages import PageRenderer
from authui.pages.packs import UnknownThemePack
from authui.pending import PendingWrites
from authui.providers.base import Provider
from authui.spent import SpentKeys
from authui.throttle import LocalCounter
from authui.urls import default_redirect, origin_of


@dataclass(frozen=True, slots=True)
class Options:
    """The request-independent parts of a configuration, resolved once."""

    config: AuthConfig
    keys: tuple[str, ...]
    logger: FullLogger
    base_path: str
    providers: Mapping[str, Provider]
    strategy: str
    jwt_max_age: int
    secure_cookies: CookieTable
    plain_cookies: CookieTable
    static_check: ConfigCheck
    host_error: AuthError | None
    """``UntrustedHost`` when the configuration trusts no host (logged per request)."""
    fixed_origin: str | None
    trusted_hosts: tuple[HostRule, ...]
    """``trusted_hosts`` parsed; empty: any host (when the host is trusted at all)."""
    jwt_callback: Callable[..., Any]
    session_callback: Callable[..., Any]
    sign_in_callback: Callable[..., Any]
    redirect_callback: Callable[..., Any]
    renderer: PageRenderer
    languages: Languages
    """The configured locales, each with its catalogue, and the default one."""
    adapter: AdapterCalls | None
    key_ring: KeyRing
    """The session-token keys derived from ``keys``, and recently decrypted tokens."""
    discovery: DiscoveryCache
    """OpenID discovery documents and key sets fetched for the providers."""
    local_counts: LocalCounter
    """Throttle counts kept in this process (without the adapter's shared counters)."""
    spent_challenges: SpentKeys
    """Passkey challenges used in this process (without the adapter's ``use_challenge``)."""
    pending: PendingWrites
    """Writes requests started and did not wait for (a database session's new expiry)."""

    @property
    def static_error(self) -> AuthError | None:
        """The first request-independent configuration error."""
        return self.static_check.errors[0] if self.static_check.errors else None

    @property
    def config_errors(self) -> list[AuthError]:
        """What stops every request: an untrusted host, then the first static error."""
        return [e for e in (self.host_error, self.static_error) if e is not None]

    def cookies(self, url: str) -> CookieTable:
        """The cookie table for a request to ``url``: secure mode follows HTTPS, that of
        ``AUTH_URL`` when one is set (the public URL, whatever the app was reached by)."""
        secure = self.config.use_secure_cookies
        if secure is None:
            secure = (self.fixed_origin or url).startswith("https:")
        return self.secure_cookies if secure else self.plain_cookies

    def language(
        self, url: str, cookies: Mapping[str, str], accept_language: str | None
    ) -> tuple[Language, bool]:
        """The language a request to ``url`` is answered in, and whether it picked one
        with the menu's ``lang`` parameter (the answer then keeps it in the
        ``authui.locale`` cookie): see ``authui.i18n.languages``."""
        names = {self.secure_cookies.locale.name, self.plain_cookies.locale.name}
        kept = next((cookies[name] for name in names if name in cookies), None)
        query = dict(parse_qsl(url.partition("?")[2].partition("#")[0]))
        return self.languages.choose(query, kept, accept_language)

    def provider(self, provider_id: str | None) -> Provider:
        """The provider with this id.

        Raises:
            InvalidProvider: There is none; the message lists the configured ids.
        """
        if provider_id is not None and provider_id in self.providers:
            return self.providers[provider_id]
        raise InvalidProvider(
            f"Provider with id {provider_id!r} not found. Available providers: "
            f"{list(self.providers)}"
        )


def resolve(config: AuthConfig) -> Options:
    """The resolved options of ``config``; computed and checked at the first call only,
    then kept on the object (``config.resolved``).

    What the configuration leaves open is filled from the environment first
    (``set_env_defaults``: ``AUTH_SECRET``, ``AUTH_URL``, ``AUTH_<ID>_ID``, …), as every
    integration of Auth.js does before calling its core; ``Options.config`` is the result.

    Configuration errors and warnings are logged once, here. In development mode a missing
    secret is replaced by the process's development secret, with a loud warning.
    """
    found = config.resolved
    if isinstance(found, Options):
        return found
    options = _build(config)
    for holder in {id(config): config, id(options.config): options.config}.values():
        object.__setattr__(holder, "resolved", options)
    return options


@functools.cache
def development_secret() -> str:
    """The secret of development mode without one: random, made once per process, so that
    every configuration the process builds (a lazy configuration makes one per request)
    reads the cookies the others wrote."""
    return secrets.token_urlsafe(32)


def _build(config: AuthConfig) -> Options:
    early: list[AuthError] = []
    try:
        config = set_env_defaults(os.environ, config, suppress_base_path_warning=True)
    except ValueError as exc:
        early.append(AuthError(str(exc)))
    if isinstance(config.adapter, str):
        try:
            config = dataclasses.replace(config, adapter=adapter_from_url(config.adapter))
        except (ValueError, ImportError) as exc:
            early.append(AuthError(str(exc)))
            config = dataclasses.replace(config, adapter=None)
    logger = FilteredLogger(config.logger or StandardLogger(), config.debug)
    if config.debug:
        show_debug_output()
    check = static_check(config)
    keys = [config.secret] if isinstance(config.secret, str) else list(config.secret or ())
    keys = [k for k in keys if k]
    errors = [*early, *check.errors]
    warnings = list(check.warnings)
    if not keys and config.development:
        keys = [development_secret()]
        warnings.insert(0, "dev-secret-generated")
    try:
        secure = cookie_table(True, config.cookies)
        plain = cookie_table(False, config.cookies)
    except ValueError as exc:
        secure = plain = cookie_table(False, {})
        errors.append(AuthError(str(exc)))
    fixed_origin = None
    if config.url:
        try:
            fixed_origin = origin_of(config.url)
        except ValueError:
            errors.append(AuthError(f"AUTH_URL is not an absolute http(s) URL: {config.url!r}"))
    try:
        trusted_hosts = host_rules(tuple(config.trusted_hosts))
    except ValueError:
        trusted_hosts = ()  # host_errors reports the entry, and every request is refused
    base_path = "/" + (config.base_path or DEFAULT_BASE_PATH).strip("/")
    try:
        renderer = PageRenderer(config.theme, base_path)
    except UnknownThemePack as exc:
        errors.append(AuthError(str(exc)))
        renderer = PageRenderer(Theme(pack="base"), base_path)
    try:
        languages = configured_languages(
            SHIPPED if config.locales is None else config.locales,
            config.default_locale,
            translation_folders(config.translations),
        )
    except ValueError as exc:
        errors.append(AuthError(str(exc)))
        languages = configured_languages(["en"], "en", ())
    for code in warnings:
        logger.warn(code)
    for error in errors:
        logger.error(error)
    callbacks = config.callbacks
    return Options(
        config=config,
        keys=tuple(keys),
        logger=logger,
        base_path=base_path,
        providers={p.id: p for p in config.providers},
        strategy=session_strategy(config),
        jwt_max_age=config.jwt.max_age or config.session.max_age,
        secure_cookies=secure,
        plain_cookies=plain,
        static_check=ConfigCheck(errors, warnings),
        host_error=next(iter(host_errors(config)), None),
        fixed_origin=fixed_origin,
        trusted_hosts=trusted_hosts,
        jwt_callback=callbacks.jwt or default_jwt,
        session_callback=callbacks.session or default_session,
        sign_in_callback=callbacks.sign_in or default_sign_in,
        redirect_callback=callbacks.redirect or default_redirect,
        renderer=renderer,
        languages=languages,
        adapter=AdapterCalls(config.adapter, logger) if config.adapter is not None else None,
        key_ring=KeyRing(keys, cache_size=DECRYPTED_CACHE_SIZE),
        discovery=DiscoveryCache(),
        local_counts=LocalCounter(),
        spent_challenges=SpentKeys(),
        pending=PendingWrites(),
    )


def validate_config(config: AuthConfig) -> None:
    """Resolve ``config`` now and raise one error reporting every configuration problem.

    Call it when the app starts (integrations do), so that a broken configuration, such as
    a missing secret outside development mode or an untrusted host, stops the app at once
    instead of answering every request with a configuration error, and names all that is
    wrong in one go rather than one problem per restart. Warnings are logged.

    Raises:
        AuthError: Of the first problem's type (``except MissingSecret`` works), its message
            listing every problem, each in ``errors``.
    """
    options = resolve(config)
    errors = [*host_errors(options.config), *options.static_check.errors]
    if errors:
        raise _reporting_all(errors)


def _reporting_all(errors: list[AuthError]) -> AuthError:
    """A copy of the first error whose message lists them all, kept in ``errors``."""
    first = errors[0]
    combined = type(first).__new__(type(first))
    vars(combined).update(vars(first))
    combined.__cause__ = first.__cause__
    combined.errors = tuple(errors)
    if len(errors) > 1:
        combined.detail = f"{len(errors)} configuration problems:" + "".join(
            f"\n  - {error.type}: {error}" for error in errors
        )
        combined.args = (combined.detail,)
    else:
        combined.args = first.args
    return combined


async def ready(options: Options) -> None:
    """Before a request's first use of the adapter: let it learn its data store, once
    (``AdapterCalls.prepare``), then say what the configuration needs that the store lacks
    (each feature as an error, with the command that adds its tables) and warn when
    authui's own tables are missing (``database-tables-missing``). Integrations call it at
    start-up too, so that this shows before the first request. A store that cannot be
    reached is left for the calls that need it to report."""
    adapter = options.adapter
    if adapter is None or adapter.prepared:
        return
    try:
        if not await adapter.prepare():
            return
    except ServiceUnavailable:
        return  # the calls that need the store report it; the next request tries again
    for error in unserved_features(options.config, adapter):
        options.logger.error(error)
    if any(adapter.unavailable(method) for method in OPTIONAL_METHODS):
        options.logger.warn("database-tables-missing")


async def aclose(config: AuthConfig) -> None:
    """Finish what ``config``'s requests left pending (``authui.pending``) and close what
    authui opened for it: the adapter it made from a URL.

    An adapter object you passed in is yours to close; integrations call this when the
    app stops.
    """
    options = config.resolved
    if not isinstance(options, Options):
        return
    await options.pending.wait()
    if not isinstance(config.adapter, str):
        return
    close = getattr(options.config.adapter, "close", None)
    if close is not None:
        await close()
