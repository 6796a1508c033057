"""``assert_config``: configuration errors and warnings, named after the error types."""

from __future__ import annotations

import importlib.util
from collections import Counter
from dataclasses import dataclass, field

from authui.adapters.base import AdapterCalls
from authui.config import AuthConfig
from authui.env_names import provider_env_prefix
from authui.errors import (
    AuthError,
    DuplicateConditionalUI,
    ExperimentalFeatureNotEnabled,
    InvalidCallbackUrl,
    InvalidEndpoints,
    InvalidProvider,
    MissingAdapter,
    MissingAdapterMethods,
    MissingAuthorize,
    MissingSecret,
    MissingWebAuthnAutocomplete,
    UntrustedHost,
)
from authui.factor_checks import MFA_METHODS, PASSWORD_METHODS, mfa_errors, password_errors
from authui.hosts import host_rules
from authui.http import Request
from authui.logger import WarningCode
from authui.mail.console import is_console
from authui.oauth.client_auth import private_key
from authui.providers.credentials import Credentials
from authui.providers.email import EmailProvider
from authui.providers.oauth import OAuthProvider
from authui.providers.password import Password
from authui.providers.webauthn import WebAuthnProvider
from authui.urls import is_valid_callback_url

DATABASE_SESSION_METHODS = (
    "create_user",
    "get_user",
    "get_user_by_email",
    "get_user_by_account",
    "update_user",
    "link_account",
    "create_session",
    "get_session_and_user",
    "update_session",
    "delete_session",
)

MIN_SECRET_LENGTH = 32


@dataclass(frozen=True, slots=True)
class ConfigCheck:
    """The outcome of ``assert_config``: errors (first one decides) and warnings."""

    errors: list[AuthError] = field(default_factory=list)
    warnings: list[WarningCode] = field(default_factory=list)


def session_strategy(config: AuthConfig) -> str:
    """The effective strategy: as configured, else database with an adapter, else jwt."""
    return config.session.strategy or ("database" if config.adapter is not None else "jwt")


def assert_config(
    config: AuthConfig,
    request: Request | None = None,
    *,
    callback_url_cookie_name: str | None = None,
) -> ConfigCheck:
    """Check a configuration, in the order of Auth.js's ``assertConfig``.

    Without a request only the request-independent checks run (what integrations do at
    start-up). With one, the host trust and the ``callbackUrl`` query parameter and cookie
    are checked too.

    Args:
        config: The configuration (after ``authui.set_env_defaults``).
        request: The request being served, if any.
        callback_url_cookie_name: Name of the callback-url cookie in this request's mode.
    """
    static = static_check(config)
    if request is None:
        return static
    errors = [*host_errors(config), *static.errors[:1]]
    errors += callback_url_errors(request, callback_url_cookie_name or "")
    errors += static.errors[1:]
    return ConfigCheck(errors, static.warnings)


def host_errors(config: AuthConfig) -> list[AuthError]:
    """``UntrustedHost`` unless the host is trusted (``trust_host``, or listed in
    ``trusted_hosts``) or a fixed URL makes it irrelevant; and for an allow-list entry
    that is no host, or a negative ``trusted_proxies``.

    Development mode trusts the host unless ``trust_host`` is explicitly false."""
    errors: list[AuthError] = []
    try:
        host_rules(tuple(config.trusted_hosts))
    except ValueError as exc:
        errors.append(UntrustedHost(f"trusted_hosts (AUTH_TRUSTED_HOSTS): {exc}"))
    if config.trusted_proxies < 0:
        errors.append(
            UntrustedHost(
                "trusted_proxies (AUTH_TRUSTED_PROXIES) is the number of proxies in front "
                f"of the app: 0 or more, not {config.trusted_proxies}"
            )
        )
    if not (_host_trusted(config) or config.url or config.trusted_hosts):
        errors.append(
            UntrustedHost(
                "Host must be trusted: set AUTH_URL (config.url), or list the hosts in "
                "AUTH_TRUSTED_HOSTS (config.trusted_hosts), or AUTH_TRUST_HOST=true "
                "(config.trust_host=True) when a proxy or the server sets the Host header"
            )
        )
    return errors


def _host_trusted(config: AuthConfig) -> bool:
    return bool(config.trust_host or (config.trust_host is None and config.development))


def host_warnings(config: AuthConfig) -> list[WarningCode]:
    """``any-host-trusted`` when links and redirects would be built from any ``Host``
    (``trust_host`` with neither ``url`` nor ``trusted_hosts``) outside development mode."""
    if config.trust_host and not (config.url or config.trusted_hosts or config.development):
        return ["any-host-trusted"]
    return []


def callback_url_errors(request: Request, cookie_name: str) -> list[AuthError]:
    """``InvalidCallbackUrl`` for a query parameter or cookie that is no path or http(s) URL.

    Auth.js's check. For a request, it is the client's error: the core answers the
    parameter with 400 and replaces the cookie (``authui.core``)."""
    errors: list[AuthError] = []
    query_url = request.query.get("callbackUrl")
    if query_url and not is_valid_callback_url(query_url):
        errors.append(InvalidCallbackUrl("Invalid callback URL in the query"))
    cookie_url = request.cookies.get(cookie_name)
    if cookie_url and not is_valid_callback_url(cookie_url):
        errors.append(InvalidCallbackUrl("Invalid callback URL in the cookie"))
    return errors


def static_check(config: AuthConfig) -> ConfigCheck:
    """The request-independent checks: secret, providers, adapter; and the warnings."""
    errors: list[AuthError] = []
    warnings: list[WarningCode] = []
    secrets = [config.secret] if isinstance(config.secret, str) else list(config.secret or ())
    if not any(secrets) and not config.development:
        errors.append(MissingSecret("Please define a `secret` (AUTH_SECRET)"))
    errors.extend(_provider_errors(config))
    errors.extend(_adapter_errors(config))
    errors.extend(_account_errors(config))
    errors.extend(password_errors(config))
    errors.extend(mfa_errors(config))
    if any(s and len(s) < MIN_SECRET_LENGTH for s in secrets):
        warnings.append("weak-secret")
    if config.debug:
        warnings.append("debug-enabled")
    if config.skip_csrf_check is not None:
        warnings.append("csrf-disabled")
    if config.experimental.enable_webauthn:
        warnings.append("experimental-webauthn")
    if not config.development and any(
        isinstance(p, EmailProvider) and p.transport is not None and is_console(p.transport)
        for p in config.providers
    ):
        warnings.append("console-email")
    warnings.extend(host_warnings(config))
    return ConfigCheck(errors, warnings)


def _provider_errors(config: AuthConfig) -> list[AuthError]:
    errors: list[AuthError] = []
    counts = Counter(p.id for p in config.providers)
    for pid in (pid for pid, n in counts.items() if n > 1):
        named = " and ".join(
            f"{p.name} ({type(p).__name__})" for p in config.providers if p.id == pid
        )
        errors.append(
            InvalidProvider(
                f"Provider ids must be unique: {named} both have the id {pid!r}; give one "
                "of them another id"
            )
        )
    for provider in config.providers:
        if isinstance(provider, OAuthProvider):
            errors.extend(oauth_provider_errors(provider))
        if isinstance(provider, EmailProvider):
            errors.extend(email_provider_errors(provider, config))
    errors.extend(webauthn_errors(config))
    credentials = [p for p in config.providers if isinstance(p, Credentials)]
    errors.extend(
        MissingAuthorize(f"Credentials provider {p.id!r} has no `authorize` function")
        for p in credentials
        if p.authorize is None and not isinstance(p, Password)
    )
    return errors


def webauthn_errors(config: AuthConfig) -> list[AuthError]:
    """Passkey providers: the experimental flag, the ``webauthn`` package (py_webauthn, the
    ``authui[webauthn]`` extra), an adapter, one conditional UI at most, and an autofill
    field (``autocomplete`` with ``webauthn``) where it is on."""
    passkeys = [p for p in config.providers if isinstance(p, WebAuthnProvider)]
    if not passkeys:
        return []
    errors: list[AuthError] = []
    if not config.experimental.enable_webauthn:
        errors.append(
            ExperimentalFeatureNotEnabled(
                "Passkeys are experimental: set Experimental(enable_webauthn=True)"
            )
        )
    if importlib.util.find_spec("webauthn") is None:
        errors.append(
            InvalidProvider(
                f"Passkey provider {passkeys[0].id!r} needs the webauthn package (py_webauthn), "
                "which is not installed: pip install 'authui[webauthn]'"
            )
        )
    if config.adapter is None:
        errors.append(MissingAdapter("Passkeys need an adapter to keep the passkeys"))
    conditional = [p for p in passkeys if p.enable_conditional_ui]
    if len(conditional) > 1:
        errors.append(
            DuplicateConditionalUI(
                "Only one passkey provider may offer conditional UI (autofill): "
                f"{[p.id for p in conditional]}"
            )
        )
    errors.extend(
        MissingWebAuthnAutocomplete(
            f"Passkey provider {p.id!r} has conditional UI but no form field whose "
            'autocomplete contains "webauthn"'
        )
        for p in conditional
        if not any(
            "webauthn" in str(f.get("autocomplete", "")).split() for f in p.form_fields.values()
        )
    )
    return errors


def email_provider_errors(provider: EmailProvider, config: AuthConfig) -> list[AuthError]:
    """What an email provider lacks: an adapter to keep its tokens, a way to send."""
    errors: list[AuthError] = []
    if config.adapter is None:
        errors.append(
            MissingAdapter(f"Email provider {provider.id!r} needs an adapter to keep its tokens")
        )
    if provider.transport is None and provider.send_verification_request is None:
        errors.append(
            InvalidProvider(
                f"Email provider {provider.id!r} has neither a transport nor "
                "send_verification_request: it cannot send its links"
            )
        )
    return errors


_SECRET_METHODS = frozenset({"client_secret_basic", "client_secret_post", "client_secret_jwt"})


def oauth_provider_errors(provider: OAuthProvider) -> list[AuthError]:
    """What an OAuth/OIDC provider lacks: a client id, an issuer or its endpoints, the key
    its client authentication needs."""
    env = provider_env_prefix(provider.id)
    errors: list[AuthError] = []
    if not provider.client_id:
        errors.append(InvalidProvider(f"Provider {provider.id!r} has no client_id: set {env}ID"))
    if provider.issuer is None:
        endpoints = {
            "authorization": provider.authorization.url,
            "token": provider.token.url,
            "userinfo": provider.userinfo.url or provider.userinfo.request,
        }
        missing = [name for name, given in endpoints.items() if not given]
        if provider.type == "oidc":
            errors.append(
                InvalidEndpoints(
                    f"OpenID provider {provider.id!r} needs an issuer to discover its "
                    f"endpoints: set {env}ISSUER (or issuer=...)"
                )
            )
        elif missing:
            errors.append(
                InvalidEndpoints(
                    f"Provider {provider.id!r} has no issuer and no {' or '.join(missing)} "
                    f"endpoint: set {env}ISSUER (or issuer=...), or the endpoints"
                )
            )
        if provider.federated_logout and provider.type == "oauth":
            errors.append(
                InvalidProvider(
                    f"Provider {provider.id!r} has federated_logout but no issuer, whose "
                    f"discovery document names the end_session_endpoint: set {env}ISSUER "
                    "(or issuer=...)"
                )
            )
    if provider.client_auth in _SECRET_METHODS and not provider.client_secret:
        errors.append(
            InvalidProvider(
                f"Provider {provider.id!r} authenticates with {provider.client_auth} but has "
                f'no client_secret: set {env}SECRET, or client_auth="none" for a public client'
            )
        )
    if provider.client_auth == "private_key_jwt":
        try:
            private_key(provider)
        except AuthError as exc:
            errors.append(InvalidProvider(exc.detail))
    return errors


CREDENTIALS_USER_METHODS = ("get_user", "get_user_by_email", "create_user")
"""What a credentials sign-in needs from an adapter, to find or store its user."""


EMAIL_METHODS = (
    "create_verification_token",
    "use_verification_token",
    "get_user_by_email",
    "create_user",
    "update_user",
)
"""What email sign-in needs from an adapter: its tokens, and finding or storing users."""

WEBAUTHN_METHODS = (
    "create_user",
    "get_user",
    "get_user_by_email",
    "link_account",
    "get_account",
    "delete_user",
    "get_authenticator",
    "create_authenticator",
    "list_authenticators_by_user_id",
    "update_authenticator_counter",
)
"""What passkeys need from an adapter. With ``create_challenge`` and ``use_challenge`` too,
each ceremony's challenge is single-use in every process; without them, in each process
(``authui.actions.webauthn.challenges``)."""

OAUTH_USER_METHODS = (
    "get_user_by_account",
    "get_user_by_email",
    "create_user",
    "link_account",
    "delete_user",
)
"""What OAuth sign-in needs from an adapter to find, create and link users (plus reading
the signed-in user: ``get_user`` or ``get_session_and_user``)."""


def _account_errors(config: AuthConfig) -> list[AuthError]:
    """``AccountOptions`` that cannot work: a window or a lifetime that is not a positive
    number of seconds or days, a notice of new browsers with nothing to send it."""
    account = config.account
    errors: list[AuthError] = []
    for name in ("reauthenticate_after", "known_browser_days"):
        value = getattr(account, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            errors.append(AuthError(f"AccountOptions.{name} must be a positive integer"))
    sender = any(isinstance(p, EmailProvider) and p.transport is not None for p in config.providers)
    if account.notify_new_browser and not sender:
        errors.append(
            InvalidProvider(
                "AccountOptions.notify_new_browser needs an email provider with a transport "
                "to send the notice"
            )
        )
    return errors


def _adapter_errors(config: AuthConfig) -> list[AuthError]:
    database = session_strategy(config) == "database"
    if database and config.adapter is None:
        return [MissingAdapter("Database sessions need an adapter")]
    if config.adapter is None or isinstance(config.adapter, str):
        return []
    errors: list[AuthError] = []
    for feature, methods in adapter_needs(config).items():
        missing = [m for m in methods if not callable(getattr(config.adapter, m, None))]
        if missing:
            errors.append(
                MissingAdapterMethods(
                    f"{feature} need these adapter methods, which are missing: {missing}"
                )
            )
    return errors


def unserved_features(config: AuthConfig, adapter: AdapterCalls) -> list[AuthError]:
    """Once the adapter is prepared: the configured features that need what its data store
    lacks (the SQL adapter on a database without authui's tables), each with the reason
    and the command that adds them."""
    needs = adapter_needs(config)
    if config.mfa.enabled and config.mfa.policy is not None:
        # Without a policy only enrolled users are asked, and a store without the
        # enrolments has none; a policy may ask anyone, so it needs them.
        needs["A two-step verification policy"] = MFA_METHODS
    errors: list[AuthError] = []
    for feature, methods in needs.items():
        reasons = {why: None for m in methods if (why := adapter.unavailable(m)) is not None}
        errors.extend(MissingAdapterMethods(f"{feature} cannot work: {why}") for why in reasons)
    return errors


def adapter_needs(config: AuthConfig) -> dict[str, tuple[str, ...]]:
    """The adapter methods each configured feature cannot do without, by feature."""
    database = session_strategy(config) == "database"
    needs: dict[str, tuple[str, ...]] = {}
    if database:
        needs["Database sessions"] = DATABASE_SESSION_METHODS
    if any(isinstance(p, Credentials) for p in config.providers):
        needs["Credentials sign-in with an adapter"] = CREDENTIALS_USER_METHODS
    if any(isinstance(p, OAuthProvider) for p in config.providers):
        current = "get_session_and_user" if database else "get_user"
        needs["OAuth sign-in with an adapter"] = (*OAUTH_USER_METHODS, current)
    if any(isinstance(p, EmailProvider) for p in config.providers):
        needs["Email sign-in"] = EMAIL_METHODS
    if any(isinstance(p, Password) for p in config.providers):
        needs["Password accounts"] = PASSWORD_METHODS
    if any(isinstance(p, WebAuthnProvider) for p in config.providers):
        needs["Passkeys"] = WEBAUTHN_METHODS
    return needs
