"""The authui demo: a small Quart site on the Quart integration.

Public home, a protected page, a profile page showing the session, sign-in with the demo
credentials user (``demo`` / ``demo``), and a theme switcher. Sessions are database
sessions in an embedded SQLite file (``.authui-demo.db``, or ``AUTH_DATABASE_URL``), so
they survive a restart; ``AUTH_SESSION_STRATEGY=jwt`` switches to JWT sessions (users and
linked accounts are still stored). Run it with ``scripts/demo``.

Passkeys (provider ``passkey``): open the demo at ``http://localhost:<port>``, not an IP
address, which cannot own passkeys; the profile page adds more passkeys to the account.

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
from pathlib import Path
from typing import Any

from quart import Quart, Response, render_template, request

from authui import (
    AuthConfig,
    Callbacks,
    Credentials,
    CredentialsSignin,
    Experimental,
    SessionOptions,
    Theme,
)
from authui.adapters import AdapterUser
from authui.adapters.from_url import adapter_from_url
from authui.mail.console import ConsoleOutbox
from authui.pages.packs import installed_packs
from authui.providers.console_email import ConsoleEmail
from authui.providers.email import EmailProvider
from authui.providers.nodemailer import Email
from authui.providers.oauth import OAuthProvider
from authui.providers.registry import providers_from_env
from authui.providers.webauthn import Passkey
from authui.quart import AuthUI

ROOT = Path(__file__).resolve().parent.parent
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

MAILBOX: ConsoleOutbox | None = None if os.environ.get("AUTH_EMAIL_SERVER") else ConsoleOutbox()
"""The development mailbox, when links are not sent through a real server."""


def email_provider() -> EmailProvider:
    """Magic links through ``AUTH_EMAIL_SERVER``, or onto the console and the mailbox page."""
    sender = os.environ.get("AUTH_EMAIL_FROM") or "authui demo <demo@localhost>"
    if MAILBOX is None:
        return Email(server=os.environ["AUTH_EMAIL_SERVER"], sender=sender)
    return ConsoleEmail(outbox=MAILBOX, sender=sender)


EMAIL = email_provider()


def session_with_user_id(
    session: dict[str, Any], user: AdapterUser | None = None, token: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Show the user's id in the session (the profile page prints it)."""
    user_id = user.id if user is not None else (token or {}).get("sub")
    return {**session, "user": {**session["user"], "id": user_id}}


CONFIGS = {
    (pack, scheme): AuthConfig(
        providers=[PROVIDER, EMAIL, Passkey(), *OAUTH_PROVIDERS],
        experimental=Experimental(enable_webauthn=True),
        adapter=ADAPTER,
        secret=development_secret(),
        trust_host=True,
        session=SessionOptions(strategy=os.environ.get("AUTH_SESSION_STRATEGY") or "database"),  # type: ignore[arg-type]
        callbacks=Callbacks(session=session_with_user_id),
        theme=Theme(pack=pack, color_scheme=scheme),  # type: ignore[arg-type]
    )
    for pack in installed_packs()
    for scheme in SCHEMES
}


def config_for(req: Any) -> AuthConfig:
    """The configuration for the theme the visitor picked (cookies ``theme``, ``scheme``)."""
    pack = req.cookies.get("theme", "default")
    scheme = req.cookies.get("scheme", "auto")
    return CONFIGS.get((pack, scheme), CONFIGS[("default", "auto")])


app = Quart(__name__)
auth_ui = AuthUI(app, config_for, base_path="/auth")
auth = auth_ui.auth


@app.before_serving
async def seed_demo_user() -> None:
    """Store the demo user, so that signing in finds it (and it is not a new user).

    Several processes may start together on one database: whichever stores the user
    first wins, and the others find it there."""
    record = USERS["demo"]
    if await ADAPTER.get_user(record["id"]) is None:
        user = AdapterUser(id=record["id"], email=record["email"], name=record["name"])
        try:
            await ADAPTER.create_user(user)
        except Exception:
            if await ADAPTER.get_user(record["id"]) is None:
                raise


@app.after_serving
async def close_database() -> None:
    await ADAPTER.close()


@app.context_processor
async def theme_choices() -> dict[str, Any]:
    return {
        "packs": sorted(installed_packs()),
        "schemes": SCHEMES,
        "current_pack": request.cookies.get("theme", "default"),
        "current_scheme": request.cookies.get("scheme", "auto"),
        "has_mailbox": MAILBOX is not None,
    }


@app.get("/")
async def home() -> str:
    return await render_template("home.html")


@app.get("/protected")
@auth.required
async def protected() -> str:
    return await render_template("protected.html")


@app.get("/profile")
@auth.required
async def profile() -> str:
    return await render_template(
        "profile.html",
        session=await auth(),
        oauth=[p for p in OAUTH_PROVIDERS if isinstance(p, OAuthProvider)],
    )


@app.get("/dev/mailbox")
async def mailbox() -> tuple[str, int] | str:
    """Development only: the magic links the console sender "sent", newest first."""
    if MAILBOX is None:
        return await render_template("mailbox.html", messages=None), 404
    return await render_template("mailbox.html", messages=list(reversed(MAILBOX.messages)))


@app.get("/theme")
async def choose_theme() -> Response:
    """Remember the visitor's theme and colour scheme (a preference: a GET, no CSRF)."""
    target = request.args.get("next", "/")
    response = Response(
        "", status=303, headers={"Location": target if target.startswith("/") else "/"}
    )
    if request.args.get("theme") in installed_packs():
        response.set_cookie("theme", request.args["theme"], samesite="Lax", httponly=True)
    if request.args.get("scheme") in SCHEMES:
        response.set_cookie("scheme", request.args["scheme"], samesite="Lax", httponly=True)
    return response
