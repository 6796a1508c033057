"""What the page templates get to know about providers and forms."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from authui.context import Context
from authui.providers.base import Provider
from authui.providers.credentials import Credentials

KEPT_INPUT_TYPES = frozenset({"text", "email", "tel", "number", "url", "search"})


def field_views(
    provider: Credentials, values: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """One entry per credentials field: name, label, input attributes and the kept value.

    Values are kept only for plain text-like inputs, never for passwords.
    """
    fields = []
    for name, spec in provider.credentials.items():
        attributes = {k: v for k, v in spec.items() if k not in ("label", "name", "id", "value")}
        attributes.setdefault("type", "text")
        if attributes["type"] == "password":
            attributes.setdefault("autocomplete", "current-password")
        value = (values or {}).get(name) if attributes["type"] in KEPT_INPUT_TYPES else None
        fields.append(
            {
                "name": name,
                "label": spec.get("label") or name,
                "id": f"authui-{provider.id}-{name}",
                "attributes": attributes,
                "value": value if isinstance(value, str) else "",
            }
        )
    return fields


def provider_view(
    ctx: Context,
    provider: Provider,
    *,
    values: Mapping[str, Any] | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    """Everything a template needs to draw one provider's form or button."""
    style = provider.style
    logo = style.logo if style and style.logo else None
    if logo is None and f"providers/{provider.id}.svg" in ctx.options.renderer.assets:
        logo = ctx.options.renderer.assets.url(f"providers/{provider.id}.svg")
    return {
        "id": provider.id,
        "name": provider.name,
        "type": provider.type,
        "signin_url": ctx.action_url("signin", provider.id),
        "callback_url": ctx.action_url("callback", provider.id),
        "fields": field_views(provider, values) if isinstance(provider, Credentials) else [],
        "brand_color": style.brand_color if style else None,
        "text_color": style.text if style else None,
        "logo": logo,
        "error": error,
    }


def form_context(ctx: Context) -> dict[str, Any]:
    """The hidden values every form posts back: CSRF token and callback URL."""
    return {"csrf_token": ctx.csrf.token, "callback_url": ctx.callback_url}
