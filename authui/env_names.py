"""The names of the environment variables authui reads for a provider: ``AUTH_<ID>_ID``,
``_SECRET``, ``_ISSUER`` and ``_KEY`` (``authui.env`` reads them into the configuration;
checks, messages and the provider registry name them)."""

from __future__ import annotations


def provider_env_prefix(provider_id: str) -> str:
    """``AUTH_<ID>_``: the provider id upper-cased, ``-`` turned into ``_``."""
    return f"AUTH_{provider_id.upper().replace('-', '_')}_"
