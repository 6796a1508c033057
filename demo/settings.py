"""What the demo's three variants share: users, providers, the database, the theme choice.

The Quart demo (``demo/app.py``), the Starlette one (``demo/starlette_app.py``) and the
FastAPI one (``demo/fastapi_app.py``) serve the same site from these settings and the same
templates (``demo/templates``), so they behave alike and can share one database.

The demo runs in development mode (``AuthConfig(development=True)``): the console sender
below is meant for it, and the host of each request is trusted unless ``AUTH_URL`` names the
site's address (``scripts/demo`` sets it to ``http://localhost:<port>``).

Sessions are database sessions in an embedded SQLite file (``.authui-demo.db``, or
``AUTH_DATABASE_URL``), so they survive a restart; ``AUTH_SESSION_STRATEGY=jwt`` switches
to JWT sessions (users and linked accounts are still stored).

Passkeys (provider ``passkey``): open the demo at ``http://localhost:<port>``, not an IP
address, which cannot own passkeys; the account center's passkeys page
(``/auth/account/passkeys``, linked from the profile page) adds more passkeys to the account.

Password accounts (provider ``password``): "Create an account" on the sign-in page signs
up with an email address and a password, confirmed by an emailed link; "Forgot your
password?" sends a reset link. Two-step verification (an authenticator app, recovery codes,
passkeys) is set up in the account center; ``/secure`` needs it.

Magic links (provider ``email``): with ``AUTH_EMAIL_SERVER`` set to an ``smtp://`` or
``smtps://`` URL they are sent through that server (from ``AUTH_EMAIL_FROM``); otherwise they
are printed on the console and listed at ``/dev/mailbox``, a development-only page.

OAuth sign-in comes from the environment, no code needed: every built-in provider whose
``AUTH_<PROVIDER>_ID`` is set (with ``AUTH_<PROVIDER>_SECRET``, and ``_ISSUER`` where the
service needs one), and any OpenID provider through ``AUTH_OIDC_ID``, ``AUTH_OIDC_SECRET``
(unset for a public client) and ``AUTH_OIDC_ISSUER``. Register
``http://localhost:5000/auth/callback/<id>`` as the redirect URI.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import httpx

from authui import (
    AuthConfig,
    Callbacks,
    Credentials,
    CredentialsSignin,
    Experimental,
    Password,
    SessionOptions,
    Theme,
    prepare,
)
from authui.adapters import AdapterUser
from authui.adapters.from_url import adapter_from_url
from authui.errors import RefreshTokenError
from authui.mail.console import ConsoleOutbox
from authui.pages.packs import installed_packs
from authui.providers.console_email import ConsoleEmail
from authui.providers.email import EmailProvider
from authui.providers.nodemailer import Email
from authui.providers.oauth import OAuthProvider
from authui.providers.registry import providers_from_env
from authui.providers.webauthn import Passkey
from authui.urls import default_redirect, origin_of, safe_url

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = Path(__file__).resolve().parent / "templates"
TRANSLATIONS = Path(__file__).resolve().parent / "translations"
"""The demo's own catalogues: its credentials form's "Username" and its sign-in page's hint
in every shipped locale."""
STATIC = Path(__file__).resolve().parent / "static"
SECRET_FILE = ROOT / ".authui-dev-secret"
DATABASE_URL = os.environ.get(
    "AUTH_DATABASE_URL", f"sqlite+aiosqlite:///{ROOT / '.authui-demo.db'}"
)
SCHEMES = ("auto", "light", "dark")


class UnknownUser(CredentialsSignin):
    code = "unknown_user"


USERS = {"demo": {"id": "1", "name": "Demo User", "email": "demo@example.com", "password": "demo"}}


async def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    user = USERS.get(str(credentials.get("username", "")))
    if user is None:
        raise UnknownUser()
    if not secrets.compare_digest(str(credentials.get("password", "")), user["password"]):
        return None
    return {k: v for k, v in user.items() if k != "password"}


def development_secret() -> str:
    """``AUTH_SECRET``, or one made once and kept in a git-ignored file."""
    if os.environ.get("AUTH_SECRET"):
        return os.environ["AUTH_SECRET"]
    if not SECRET_FILE.exists():
        SECRET_FILE.write_text(secrets.token_urlsafe(32))
        SECRET_FILE.chmod(0o600)
    return SECRET_FILE.read_text().strip()


PROVIDER = Credentials(
    credentials={
        "username": {"label": "Username", "autocomplete": "username", "required": True},
        "password": {"label": "Password", "type": "password", "autocomplete": "current-password"},
    },
    authorize=authorize,
)
ADAPTER: Any = adapter_from_url(DATABASE_URL)
"""One adapter (one connection pool) for every theme's configuration."""

OAUTH_PROVIDERS = providers_from_env(os.environ)
"""The OAuth providers configured through the environment."""

OAUTH_BUTTONS = [p for p in OAUTH_PROVIDERS if isinstance(p, OAuthProvider)]
"""The OAuth providers the profile page offers to connect."""

FRESH_TOKEN_PROVIDER = next((p for p in OAUTH_BUTTONS if p.id == "oidc"), None)
"""The OpenID provider (``AUTH_OIDC_*``) whose userinfo the profile page calls with a fresh
access token (``get_access_token``), if one is configured."""

MAILBOX: ConsoleOutbox | None = None if os.environ.get("AUTH_EMAIL_SERVER") else ConsoleOutbox()
"""The development mailbox, when links are not sent through a real server."""


def email_provider() -> EmailProvider:
    """Magic links through ``AUTH_EMAIL_SERVER``, or onto the console and the mailbox page."""
    sender = os.environ.get("AUTH_EMAIL_FROM") or "authui demo <demo@localhost>"
    if MAILBOX is None:
        return Email(server=os.environ["AUTH_EMAIL_SERVER"], sender=sender)
    return ConsoleEmail(outbox=MAILBOX, sender=sender)


EMAIL = email_provider()
PASSWORD = Password(name="Email and password")
"""Password accounts: sign up at ``/auth/password/signup`` (the confirmation link arrives
like a magic link); two-step verification is set up at ``/auth/account/two-factor``."""


async def provider_userinfo(access_token: str) -> dict[str, Any]:
    """``GET`` the OpenID provider's userinfo endpoint (from its discovery document) with
    ``access_token``, as an app calls a provider's API on the user's behalf."""
    issuer = os.environ["AUTH_OIDC_ISSUER"].rstrip("/")  # as providers_from_env found it
    async with httpx.AsyncClient(timeout=10) as client:
        discovery = (await client.get(f"{issuer}/.well-known/openid-configuration")).json()
        answer = await client.get(
            discovery["userinfo_endpoint"], headers={"Authorization": f"Bearer {access_token}"}
        )
    answer.raise_for_status()
    found: dict[str, Any] = answer.json()
    return found


async def userinfo_context(access_token: Callable[[], Awaitable[str | None]]) -> dict[str, Any]:
    """The profile page's userinfo section: what the provider answered with a fresh token
    (``access_token()`` gets it, refreshing it when it has expired), or why there is none."""
    try:
        token = await access_token()
    except RefreshTokenError:
        return {"userinfo_error": "Your sign-in with the provider has expired: sign in again."}
    if token is None:
        return {"userinfo_error": "Nobody is signed in."}
    try:
        return {"userinfo": await provider_userinfo(token)}
    except httpx.HTTPError as exc:
        return {"userinfo_error": f"The provider did not answer: {exc}"}


def session_with_user_id(
    session: dict[str, Any], user: AdapterUser | None = None, token: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Show the user's id in the session (the profile page prints it)."""
    user_id = user.id if user is not None else (token or {}).get("sub")
    return {**session, "user": {**session["user"], "id": user_id}}


CONFIGS = {
    (pack, scheme): AuthConfig(
        providers=[PROVIDER, PASSWORD, EMAIL, Passkey(), *OAUTH_PROVIDERS],
        experimental=Experimental(enable_webauthn=True),
        adapter=ADAPTER,
        secret=development_secret(),
        development=True,
        session=SessionOptions(strategy=os.environ.get("AUTH_SESSION_STRATEGY") or "database"),  # type: ignore[arg-type]
        callbacks=Callbacks(session=session_with_user_id),
        theme=Theme(pack=pack, color_scheme=scheme, template_dirs=(str(TEMPLATES),)),  # type: ignore[arg-type]
        translations=TRANSLATIONS,
    )
    for pack in installed_packs()
    for scheme in SCHEMES
}


def config_for(req: Any) -> AuthConfig:
    """The configuration for the theme the visitor picked (cookies ``theme``, ``scheme``)."""
    pack = req.cookies.get("theme", "default")
    scheme = req.cookies.get("scheme", "auto")
    return CONFIGS.get((pack, scheme), CONFIGS[("default", "auto")])


async def seed_demo_user() -> None:
    """Store the demo user, so that signing in finds it (and it is not a new user).

    Several processes may start together on one database: whichever stores the user
    first wins, and the others find it there. First the adapter learns its database
    (``prepare``), so that what it lacks is logged at start-up: the configurations are
    picked per request, which the integration cannot do for us."""
    await prepare(CONFIGS[("default", "auto")])
    record = USERS["demo"]
    if await ADAPTER.get_user(record["id"]) is None:
        user = AdapterUser(id=record["id"], email=record["email"], name=record["name"])
        try:
            await ADAPTER.create_user(user)
        except Exception:
            if await ADAPTER.get_user(record["id"]) is None:
                raise


def page_context(cookies: Mapping[str, str], path: str) -> dict[str, Any]:
    """What the layout needs besides the session: the theme switcher and the nav."""
    return {
        "packs": sorted(installed_packs()),
        "schemes": SCHEMES,
        "current_pack": cookies.get("theme", "default"),
        "current_scheme": cookies.get("scheme", "auto"),
        "current_path": path,
        "has_mailbox": MAILBOX is not None,
    }


def theme_choice(args: Mapping[str, str], request_url: str) -> tuple[str, dict[str, str]]:
    """``GET /theme``: where to go next and the preference cookies to set (``theme``,
    ``scheme``), from the switcher's query.

    ``next`` is checked as authui checks a callback URL (``default_redirect``): a page of
    this site (the origin of ``request_url``), else its home page; the result is fit for a
    ``Location`` header (``safe_url``)."""
    cookies = {}
    if args.get("theme") in installed_packs():
        cookies["theme"] = args["theme"]
    if args.get("scheme") in SCHEMES:
        cookies["scheme"] = args["scheme"]
    try:
        site = origin_of(request_url)
    except ValueError:  # a Host header no URL can have
        return "/", cookies
    return safe_url(default_redirect(url=args.get("next", "/"), base_url=site)), cookies


def mailbox_messages() -> list[Any] | None:
    """The development mailbox's messages, newest first; ``None`` without a mailbox."""
    return None if MAILBOX is None else list(reversed(MAILBOX.messages))
