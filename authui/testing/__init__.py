"""Helpers for testing apps and integrations built on authui."""

from __future__ import annotations

from authui.testing.adapter_suite import (
    AdapterAuthenticatorConformance as AdapterAuthenticatorConformance,
)
from authui.testing.adapter_suite import AdapterConformance as AdapterConformance
from authui.testing.adapter_suite import (
    AdapterConformanceWithoutWebAuthn as AdapterConformanceWithoutWebAuthn,
)
from authui.testing.client import AuthClient as AuthClient

__all__ = [
    "AdapterAuthenticatorConformance",
    "AdapterConformance",
    "AdapterConformanceWithoutWebAuthn",
    "AuthClient",
]
