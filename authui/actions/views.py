"""What the page templates get to know about providers and forms."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from authui.context import Context
from authui.i18n import translate, translate_given
from authui.providers.base import Provider
from authui.providers.credentials import Credentials
from authui.providers.password import Password
from authui.providers.webauthn import WebAuthnProvider

KEPT_INPUT_TYPES = frozenset({"text", "email", "tel", "number", "url", "search"})


def field_views(
    provider: Credentials | WebAuthnProvider, values: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """One entry per credentials field: name, label (in the request's language when a
    catalogue has it: the built-in providers' own, or the app's), input attributes and the
    kept value.

    Values are kept only for plain text-like inputs, never for passwords.
    """
    fields = []
    specs = provider.credentials if isinstance(provider, Credentials) else provider.form_fields
    for name, spec in specs.items():
        attributes = {k: v for k, v in spec.items() if k not in ("label", "name", "id", "value")}
        attributes.setdefault("type", "text")
        if attributes["type"] == "password":
            attributes.setdefault("autocomplete", "current-password")
        value = (values or {}).get(name) if attributes["type"] in KEPT_INPUT_TYPES else None
        fields.append(
            {
                "name": name,
                "label": translate_given(str(spec.get("label") or name)),
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
    last_used: str | None = None,
) -> dict[str, Any]:
    """Everything a template needs to draw one provider's form or button.

    ``last_used`` is the id of the provider this browser last signed in with."""
    style = provider.style
    logo, logo_dark = _logos(ctx, provider)
    return {
        "id": provider.id,
        "name": provider.name,
        "type": provider.type,
        "label": translate_given(style.label) if style and style.label else _label(provider),
        "signin_url": ctx.action_url("signin", provider.id),
        "callback_url": ctx.action_url("callback", provider.id),
        "fields": (
            field_views(provider, values)
            if isinstance(provider, Credentials | WebAuthnProvider)
            else []
        ),
        "conditional_ui": isinstance(provider, WebAuthnProvider) and provider.enable_conditional_ui,
        "options_url": ctx.action_url("webauthn-options", provider.id),
        "brand_color": style.brand_color if style else None,
        "text_color": button_text(style.brand_color, style.text) if style else None,
        "logo": logo,
        "logo_dark": logo_dark,
        "monogram": _monogram(provider.name),
        "last_used": provider.id == last_used,
        "error": error,
        **_password_links(ctx, provider),
    }


def _password_links(ctx: Context, provider: Provider) -> dict[str, str | None]:
    """A password provider's links beside its form: "forgot" and "sign up"."""
    if not isinstance(provider, Password):
        return {}
    signup = ctx.action_url("password", "signup") if provider.sign_up else None
    return {"forgot_url": ctx.action_url("password", "forgot"), "signup_url": signup}


def passkey_beside(ctx: Context, provider: Provider) -> WebAuthnProvider | None:
    """The passkey provider sharing an email provider's form on the sign-in page: the
    n-th passkey provider beside the n-th email provider."""
    providers = ctx.options.providers.values()
    emails = [p.id for p in providers if p.type == "email"]
    passkeys = [p for p in providers if isinstance(p, WebAuthnProvider)]
    index = emails.index(provider.id) if provider.id in emails else len(passkeys)
    return passkeys[index] if index < len(passkeys) else None


def _label(provider: Provider) -> str:
    """The button's text when the provider's style names none."""
    if isinstance(provider, Credentials):
        if provider.name == "Credentials" or isinstance(provider, Password):
            return translate("Sign in")
        return translate("Sign in with {name}", name=provider.name)
    if isinstance(provider, WebAuthnProvider):
        return translate("Sign in with a passkey")
    if provider.type == "email":
        return translate("Email me a sign-in link")
    return translate("Continue with {name}", name=provider.name)


def _logos(ctx: Context, provider: Provider) -> tuple[str | None, str | None]:
    """The provider's mark, light and dark: its style's, else authui's own copy of the
    brand's (``static/logos/<id>.svg`` and ``<id>-dark.svg``), else none."""
    style = provider.style
    if style and style.logo:
        return style.logo, style.logo_dark
    if provider.type not in ("oauth", "oidc"):
        return None, None
    assets = ctx.options.renderer.assets
    light, dark = f"logos/{provider.id}.svg", f"logos/{provider.id}-dark.svg"
    if light not in assets:
        return None, None
    return assets.url(light), assets.url(dark) if dark in assets else None


def _monogram(name: str) -> str:
    """The first letter or digit of a name, for a provider without a mark."""
    return next((c.upper() for c in name if c.isalnum()), "?")


def _luminance(color: str) -> float | None:
    """WCAG relative luminance of ``#rgb`` or ``#rrggbb``; ``None`` for other notations."""
    digits = color.strip().lstrip("#")
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    if len(digits) != 6:
        return None
    try:
        channels = [int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    except ValueError:
        return None
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(first: str, second: str) -> float | None:
    """The WCAG contrast ratio of two hex colours (1 to 21)."""
    a, b = _luminance(first), _luminance(second)
    if a is None or b is None:
        return None
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


MIN_CONTRAST = 4.5
"""WCAG 2 AA for normal text: what a provider button's label must reach on its colour."""


def button_text(brand: str | None, text: str | None) -> str | None:
    """A provider button's text colour: the provider's own, else white, else black, the
    first that reads well on ``brand`` (``MIN_CONTRAST``); the better of white and black if
    neither does. As given when ``brand`` is unset or not a hex colour."""
    if brand is None or _luminance(brand) is None:
        return text
    candidates = [c for c in (text, "#ffffff", "#000000") if c is not None]
    readable = [c for c in candidates if (contrast(brand, c) or 0) >= MIN_CONTRAST]
    if readable:
        return readable[0]
    return max(("#ffffff", "#000000"), key=lambda c: contrast(brand, c) or 0)


def form_context(ctx: Context) -> dict[str, Any]:
    """The hidden values every form posts back: CSRF token and callback URL."""
    return {"csrf_token": ctx.csrf.token, "callback_url": ctx.callback_url}
