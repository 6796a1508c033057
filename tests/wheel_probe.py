"""Run by tests/test_wheel.py in an interpreter that has authui from the built wheel only.

Walks every page of every installed theme pack as a browser would (sign-in, sign-out,
error, verify-request, the emailed link's confirmation page, new-user, the account
center's pages), renders the sign-in email, fetches every static file the pages link, and
prints what it saw as JSON on stdout; the test makes the assertions. It imports nothing
from the repository.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import authui
from authui import AuthConfig, Credentials, Experimental, Theme, set_env_defaults
from authui.adapters.memory import MemoryAdapter
from authui.http import Response
from authui.i18n import SHIPPED
from authui.i18n.catalogues import SHIPPED_DIR
from authui.mail.message import VerificationEmail
from authui.pages.assets import STATIC_DIR
from authui.pages.packs import THEMES_DIR, installed_packs
from authui.providers.email import EmailProvider
from authui.providers.github import GitHub
from authui.providers.webauthn import Passkey
from authui.testing import AuthClient

ENV = {"AUTH_SECRET": "wheel-probe-secret-that-is-long-enough-0123456", "AUTH_TRUST_HOST": "true"}
STATIC_LINK = re.compile(r'"(/auth/_static/[^"]+)"')


class Outbox:
    """A mail transport that keeps the messages it is given."""

    def __init__(self) -> None:
        self.sent: list[VerificationEmail] = []

    async def __call__(self, message: VerificationEmail, provider: EmailProvider) -> None:
        self.sent.append(message)


async def no_one(credentials: dict[str, Any], request: Any) -> None:
    """A credentials check that refuses everyone: only its form is rendered."""


def config_for(pack: str, outbox: Outbox) -> AuthConfig:
    """Every kind of provider, so the sign-in page renders every form of the pack."""
    providers = [
        GitHub(client_id="id", client_secret="secret"),
        EmailProvider(transport=outbox, sender="Acme <login@acme.example>"),
        Passkey(),
        Credentials(credentials={"username": {"label": "Username"}}, authorize=no_one),
    ]
    return set_env_defaults(
        ENV,
        AuthConfig(
            providers=providers,
            adapter=MemoryAdapter(),
            theme=Theme(pack=pack),
            experimental=Experimental(enable_webauthn=True),
        ),
    )


def seen(response: Response) -> dict[str, Any]:
    return {"status": response.status, "bytes": len(response.body)}


async def walk(pack: str) -> dict[str, Any]:
    """Every page of ``pack``, in the order a user meets them, and the static files they
    link (fetched through the same theme, which serves the pack's stylesheets)."""
    outbox = Outbox()
    client = AuthClient(config_for(pack, outbox))
    pages: dict[str, Response] = {
        "signin": await client.get("signin"),
        "signin-error": await client.get("signin?error=CredentialsSignin"),
        "signout": await client.get("signout"),
        "error": await client.get("error"),
        "error-verification": await client.get("error?error=Verification"),
        "verify-request": await client.get("verify-request"),
    }
    form = {"csrfToken": await client.csrf_token(), "email": "ada@example.com"}
    await client.post("signin/email", form=form)
    [email] = outbox.sent
    link = urlsplit(email.url)
    pages["confirm-signin"] = await client.get(f"callback/email?{link.query}")
    answer = {
        **dict(parse_qsl(link.query)),
        "csrfToken": await client.csrf_token(),
        "callbackUrl": "/welcome",
    }
    signed_in = await client.post("callback/email", form=answer)
    pages["new-user"] = await client.get("new-user")
    form = {"csrfToken": await client.csrf_token(), "name": "   "}
    pages["new-user-invalid"] = await client.post("new-user", form=form)
    html = {"accept": "text/html"}
    for page in ("", "profile", "passkeys", "sessions", "activity", "delete", "reauthenticate"):
        pages[f"account/{page}".rstrip("/")] = await client.get(f"account/{page}", headers=html)
    links = sorted({link for r in pages.values() for link in STATIC_LINK.findall(r.text)})
    static_files = {}
    for link in links:
        response = await client.get(link.removeprefix("/auth/"))
        static_files[link] = {**seen(response), "type": response.header("content-type")}
    return {
        "pages": {name: seen(response) for name, response in pages.items()},
        "signed_in": signed_in.header("location"),
        "email": {"subject": email.subject, "text": len(email.text), "html": len(email.html)},
        "static_files": static_files,
    }


async def languages() -> dict[str, str]:
    """The sign-in page's ``<html>`` tag and heading in each shipped locale, as a browser
    preferring it sees them (the wheel's compiled catalogues)."""
    client = AuthClient(config_for("base", Outbox()))
    found = {}
    for tag in SHIPPED:
        page = (await client.get("signin", headers={"accept-language": tag})).text
        html = re.search(r"<html [^>]*>", page)
        heading = re.search(r'<h1 class="authui-heading">([^<]*)</h1>', page)
        found[tag] = f"{html.group(0) if html else ''} {heading.group(1) if heading else ''}"
    return found


async def main() -> None:
    report = {
        "authui": authui.__file__,
        "themes": str(THEMES_DIR),
        "static": str(STATIC_DIR),
        "packs": {pack: await walk(pack) for pack in sorted(installed_packs())},
        "languages": await languages(),
        "catalogues": str(SHIPPED_DIR),
    }
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    asyncio.run(main())
