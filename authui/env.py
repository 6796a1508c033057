"""Configuration from environment variables (``AUTH_SECRET``, ``AUTH_URL``, …)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from authui.config import AuthConfig
from authui.env_names import provider_env_prefix
from authui.logger import Logger, StandardLogger
from authui.providers.base import Provider

DEFAULT_BASE_PATH = "/auth"
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})
_PROVIDER_ENV = (
    ("ID", "client_id"),
    ("SECRET", "client_secret"),
    ("ISSUER", "issuer"),
    ("KEY", "api_key"),
)


def env_flag(value: str | None) -> bool | None:
    """``"true"``/``"1"``/``"yes"``/``"on"`` → True, their opposites → False, else None.

    Auth.js treats any non-empty string as true (so ``AUTH_TRUST_HOST=false`` trusts the
    host); authui reads the word.
    """
    if value is None:
        return None
    word = value.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    return None


def env_secrets(env: Mapping[str, str]) -> list[str]:
    """``[AUTH_SECRET_3, AUTH_SECRET_2, AUTH_SECRET_1, AUTH_SECRET]``, the unset ones left out."""
    names = ("AUTH_SECRET_3", "AUTH_SECRET_2", "AUTH_SECRET_1", "AUTH_SECRET")
    return [env[name] for name in names if env.get(name)]


def _env_list(value: str | None) -> tuple[str, ...]:
    """A comma-separated list, blanks dropped."""
    return tuple(item.strip() for item in (value or "").split(",") if item.strip())


def _env_count(value: str | None) -> int:
    """A whole number of things (0 when unset)."""
    text = (value or "").strip()
    if not text:
        return 0
    if not (text.isascii() and text.isdigit()):
        raise ValueError(
            f"AUTH_TRUSTED_PROXIES must be the number of proxies in front of the app "
            f"(0, 1, 2, ...), not {value!r}"
        )
    return int(text)


def _with_env_credentials(provider: Provider, env: Mapping[str, str]) -> Provider:
    prefix = provider_env_prefix(provider.id)
    names = {f.name for f in dataclasses.fields(provider)}
    changes: dict[str, Any] = {
        field: env[prefix + suffix]
        for suffix, field in _PROVIDER_ENV
        if field in names and _open(provider, field) and env.get(prefix + suffix)
    }
    if "issuer" in changes and "default_issuer" in names:
        changes["default_issuer"] = False
    return dataclasses.replace(provider, **changes) if changes else provider


def _open(provider: Provider, field: str) -> bool:
    """Whether the environment may fill ``field``: unset, or a built-in's default issuer."""
    if getattr(provider, field) is None:
        return True
    return field == "issuer" and bool(getattr(provider, "default_issuer", False))


def set_env_defaults(
    env: Mapping[str, str],
    config: AuthConfig,
    suppress_base_path_warning: bool = False,
) -> AuthConfig:
    """Fill what ``config`` leaves open from environment variables; returns a new config.

    - ``secret`` ← ``[AUTH_SECRET_3, AUTH_SECRET_2, AUTH_SECRET_1, AUTH_SECRET]`` (unset
      ones skipped), newest first, when the config has none.
    - ``url`` ← ``AUTH_URL``; ``base_path`` ← the path of ``AUTH_URL``, else ``/auth``.
    - ``trust_host`` ← true when ``AUTH_URL`` is set, else ``AUTH_TRUST_HOST`` read as a
      boolean word, else the development flag.
    - ``trusted_hosts`` ← ``AUTH_TRUSTED_HOSTS``, comma-separated, when the config lists none.
    - ``trusted_proxies`` ← ``AUTH_TRUSTED_PROXIES`` (a whole number) when the config's is 0.
    - ``development`` ← ``AUTH_DEVELOPMENT`` when it is a true word.
    - ``redirect_proxy_url`` ← ``AUTH_REDIRECT_PROXY_URL``.
    - each provider's ``client_id``/``client_secret``/``issuer``/``api_key`` ←
      ``AUTH_<ID>_ID``/``_SECRET``/``_ISSUER``/``_KEY`` where the provider has the field
      and leaves it unset (or, for ``issuer``, holds a built-in's multi-tenant default).

    Args:
        env: Usually ``os.environ``.
        config: The configuration to complete.
        suppress_base_path_warning: Do not warn when both ``AUTH_URL`` has a path and
            ``base_path`` is set.

    Raises:
        ValueError: ``AUTH_TRUSTED_PROXIES`` is not a whole number.
    """
    logger: Logger = config.logger or StandardLogger()
    url = config.url or env.get("AUTH_URL") or None
    base_path = config.base_path
    if url:
        try:
            env_path = urlsplit(url).path.rstrip("/")
        except ValueError:
            env_path = ""
        if base_path is None:
            base_path = env_path or None
        elif env_path and not suppress_base_path_warning:
            logger.warn("env-url-basepath-redundant")
    development = config.development or bool(env_flag(env.get("AUTH_DEVELOPMENT")))
    trust_host = config.trust_host
    if trust_host is None:
        trust_host = True if url else env_flag(env.get("AUTH_TRUST_HOST"))
        if trust_host is None:
            trust_host = development
    secret = config.secret or env_secrets(env) or None
    return dataclasses.replace(
        config,
        secret=secret,
        url=url,
        base_path=base_path or DEFAULT_BASE_PATH,
        trust_host=trust_host,
        trusted_hosts=config.trusted_hosts or _env_list(env.get("AUTH_TRUSTED_HOSTS")),
        trusted_proxies=config.trusted_proxies or _env_count(env.get("AUTH_TRUSTED_PROXIES")),
        development=development,
        redirect_proxy_url=config.redirect_proxy_url or env.get("AUTH_REDIRECT_PROXY_URL") or None,
        providers=tuple(_with_env_credentials(p, env) for p in config.providers),
    )
