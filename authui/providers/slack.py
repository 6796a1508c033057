"""Slack: "Sign in with Slack", OpenID Connect at ``https://slack.com``.

Register ``<origin>/auth/callback/slack`` under OAuth & Permissions → Redirect URLs of the
Slack app (Slack requires ``https``, also for development); ``AUTH_SLACK_ID`` and
``AUTH_SLACK_SECRET`` hold the app's client id and secret.

Quirks: the round trip is protected by ``nonce`` (Slack's sign-in does not do PKCE);
Slack reports token errors as ``{"ok": false, "error": …}`` with status 200, which the
flow treats as a token endpoint error. Workspace facts are namespaced claims
(``https://slack.com/team_id``, ``https://slack.com/user_id`` …) in ``profile``.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, with_overrides


def Slack(**options: Any) -> OAuthProvider:
    """Sign in with Slack. Keyword arguments override any ``OAuthProvider`` setting,
    e.g. ``authorization={"params": {"team": "T0123"}}`` to preselect a workspace."""
    defaults = {
        "id": "slack",
        "name": "Slack",
        "type": "oidc",
        "issuer": "https://slack.com",
        "authorization": Endpoint(params={"scope": "openid profile email"}),
        "checks": ("nonce",),
        "style": ProviderStyle(brand_color="#611f69"),
    }
    return with_overrides(defaults, options)
