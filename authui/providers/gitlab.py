"""GitLab: OAuth 2 sign-in with a GitLab account (gitlab.com or a self-managed instance).

Register ``<origin>/auth/callback/gitlab`` as the "Redirect URI" of an application
(GitLab → Preferences → Applications, or a group's or the instance's applications) with
the ``read_user`` scope; ``AUTH_GITLAB_ID`` and ``AUTH_GITLAB_SECRET`` hold its
application id and secret.

Quirks: the profile is ``GET /api/v4/user`` (scope ``read_user``), which does not say
whether the email is verified, so email linking stays off for GitLab accounts. GitLab
answers tokens with ``token_type: "Bearer"``; it is stored lower-cased.
"""

from __future__ import annotations

from typing import Any

from authui.providers.base import ProviderStyle
from authui.providers.oauth import Endpoint, OAuthProvider, Profile, TokenSet, with_overrides

GITLAB_URL = "https://gitlab.com"


def GitLab(*, base_url: str | None = None, **options: Any) -> OAuthProvider:
    """Sign in with GitLab.

    Args:
        base_url: The URL of a self-managed GitLab instance, e.g.
            ``"https://gitlab.example.com"``; endpoints become ``<base>/oauth/…`` and
            ``<base>/api/v4/user``. Also accepted as ``options={"base_url": …}``.
            Defaults to ``https://gitlab.com``.
        **options: Override any ``OAuthProvider`` setting.
    """
    given = dict(options.get("options") or {})
    base = (base_url or given.get("base_url") or GITLAB_URL).rstrip("/")
    defaults: dict[str, Any] = {
        "id": "gitlab",
        "name": "GitLab",
        "type": "oauth",
        "authorization": Endpoint(url=f"{base}/oauth/authorize", params={"scope": "read_user"}),
        "token": Endpoint(url=f"{base}/oauth/token"),
        "userinfo": Endpoint(url=f"{base}/api/v4/user"),
        "profile": _profile,
        "style": ProviderStyle(brand_color="#FC6D26", text="#fff"),
        "options": {"base_url": base},
    }
    return with_overrides(defaults, options)


def _profile(profile: Profile, tokens: TokenSet) -> dict[str, Any]:
    account_id = profile.get("sub") if profile.get("sub") is not None else profile["id"]
    return {
        "id": str(account_id),
        "name": profile.get("name") or profile.get("username"),
        "email": profile.get("email"),
        "image": profile.get("avatar_url"),
    }
