"""Helpers of the passkey browser tests: a page on the demo at ``http://localhost:<port>``
with Chromium's virtual authenticators (driven through the DevTools protocol), and the
steps the tests repeat (sign in with the passkey button, sign out, read the use counts,
capture a passkey answer and send it again).

WebAuthn needs a host name: an IP address such as 127.0.0.1 can never be a relying party
ID, so the pages are opened at ``localhost`` while the server binds 127.0.0.1 (Chromium
resolves ``localhost`` to loopback itself; the host-resolver rules exclude it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import httpx
from playwright.async_api import expect

from authui.adapters.sqlalchemy import SQLAlchemyAdapter

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.async_api import CDPSession, Page, Route

NO_AUTOFILL = """
if (window.PublicKeyCredential) {
  PublicKeyCredential.isConditionalMediationAvailable = async () => false;
}
"""
"""An init script: the page believes the browser has no passkey autofill (conditional UI),
so that a sign-in happens only through the button."""

NO_WEBAUTHN = "delete window.PublicKeyCredential;"
"""An init script: a browser without the WebAuthn API."""

SKIP_UV_FLAG = "authui-test-skip-user-verification"
"""The ``localStorage`` key that turns ``SKIP_USER_VERIFICATION`` on (value ``"1"``)."""

SKIP_USER_VERIFICATION = f"""
(() => {{
  const container = navigator.credentials;
  if (!container) return;
  const skip = () => localStorage.getItem("{SKIP_UV_FLAG}") === "1";
  const create = container.create.bind(container);
  const get = container.get.bind(container);
  container.create = (options) => {{
    if (skip()) {{
      // (an authenticator verifies the user anyway to store a discoverable credential)
      options.publicKey.authenticatorSelection = {{
        ...options.publicKey.authenticatorSelection,
        userVerification: "discouraged",
        residentKey: "discouraged",
        requireResidentKey: false,
      }};
    }}
    return create(options);
  }};
  container.get = (options) => {{
    if (skip()) options.publicKey.userVerification = "discouraged";
    return get(options);
  }};
}})();
"""
"""An init script: while ``localStorage[SKIP_UV_FLAG]`` is ``"1"``, the page asks the
authenticator not to verify the user, whatever the server's options say, so that an
unverified answer reaches the server (a tampered page)."""


SIGNED_IN_PAGE = "/profile"


@dataclass
class PasskeyBrowser:
    """A page on the demo with the WebAuthn domain of the DevTools protocol turned on."""

    page: Page
    base: str
    """``http://localhost:<port>``."""
    cdp: CDPSession
    authenticators: list[str] = field(default_factory=list)
    """The virtual authenticators added, oldest first."""
    database: Path | None = None
    """The demo's SQLite file, to read what the server stored (``stored_counters``)."""

    async def add_authenticator(
        self,
        *,
        transport: str = "internal",
        verified: bool = True,
        can_verify: bool = True,
        credentials: list[dict[str, Any]] | None = None,
    ) -> str:
        """A CTAP2 authenticator that holds discoverable credentials, verifies the user (or
        not, or ``can_verify=False``: cannot) and answers by itself (no touch needed),
        holding ``credentials`` (from ``credentials()`` of another one); returns its id."""
        added = await self.cdp.send(
            "WebAuthn.addVirtualAuthenticator",
            {
                "options": {
                    "protocol": "ctap2",
                    "transport": transport,
                    "hasResidentKey": True,
                    "hasUserVerification": can_verify,
                    "isUserVerified": verified and can_verify,
                    "automaticPresenceSimulation": True,
                }
            },
        )
        authenticator = str(added["authenticatorId"])
        self.authenticators.append(authenticator)
        for credential in credentials or []:
            await self.cdp.send(
                "WebAuthn.addCredential",
                {"authenticatorId": authenticator, "credential": credential},
            )
        return authenticator

    async def remove_authenticator(self, authenticator: str) -> list[dict[str, Any]]:
        """Unplug the authenticator; returns the credentials it held."""
        held = await self.credentials(authenticator)
        await self.cdp.send(
            "WebAuthn.removeVirtualAuthenticator", {"authenticatorId": authenticator}
        )
        self.authenticators.remove(authenticator)
        return held

    async def set_user_verified(self, verified: bool, authenticator: str | None = None) -> None:
        await self.cdp.send(
            "WebAuthn.setUserVerified",
            {
                "authenticatorId": authenticator or self.authenticators[0],
                "isUserVerified": verified,
            },
        )

    async def credentials(self, authenticator: str | None = None) -> list[dict[str, Any]]:
        """The credentials the authenticator holds (``credentialId``, ``privateKey``,
        ``signCount``, …)."""
        found = await self.cdp.send(
            "WebAuthn.getCredentials", {"authenticatorId": authenticator or self.authenticators[0]}
        )
        return list(found["credentials"])

    async def sign_count(self, authenticator: str | None = None) -> int:
        """The signature counter of the authenticator's only credential."""
        [credential] = await self.credentials(authenticator)
        return int(credential["signCount"])


async def open_sign_in(page: Page, then: str = SIGNED_IN_PAGE) -> None:
    await page.goto("/auth/signin?" + urlencode({"callbackUrl": then}))


PASSKEY_SIGN_IN = "Sign in with a passkey"
PASSKEY_SIGN_UP = "New here? Sign up with a passkey"


async def press_passkey_button(page: Page, email: str = "") -> None:
    """Type ``email`` (if any) into the email form and press "Sign in with a passkey"."""
    form = page.locator("form[data-authui-passkey]")
    await form.get_by_label("Email").fill(email)
    await form.get_by_role("button", name=PASSKEY_SIGN_IN).click()


async def sign_up_with_passkey(page: Page, email: str) -> None:
    """Type ``email`` into the email form and press the passkey sign-up button."""
    form = page.locator("form[data-authui-passkey]")
    await form.get_by_label("Email").fill(email)
    await form.get_by_role("button", name=PASSKEY_SIGN_UP).click()


async def finish_new_user(page: Page, name: str = "Passkey Person") -> None:
    """On the new-user page after a registration: set the display name and continue."""
    await page.get_by_label("Display name").fill(name)
    await page.get_by_role("button", name="Continue").click()


async def profile_email(page: Page) -> str:
    return await page.locator("#profile-email").inner_text()


async def sign_out(page: Page) -> None:
    """Sign out with the demo header's button and land on the home page."""
    await page.goto(SIGNED_IN_PAGE)
    await page.get_by_role("banner").get_by_role("button", name="Sign out").click()
    await page.wait_for_url("**/")


async def stored_counters(opened: PasskeyBrowser) -> list[int]:
    """The signature counters the demo stored for the signed-in user's passkeys, oldest
    first, read from its database (the pages show when a passkey was last used, not its
    counter, which synced passkeys keep at 0)."""
    database = opened.database
    assert database is not None, "opened without the demo's database"
    email = (await session(opened.page))["user"]["email"]
    async with SQLAlchemyAdapter(f"sqlite+aiosqlite:///{database}") as adapter:
        user = await adapter.get_user_by_email(email)
        assert user is not None
        return [p.counter for p in await adapter.list_authenticators_by_user_id(user.id)]


async def skip_user_verification(page: Page, skip: bool) -> None:
    """Turn ``SKIP_USER_VERIFICATION`` on or off for the page's origin."""
    await page.evaluate(
        "([key, on]) => on ? localStorage.setItem(key, '1') : localStorage.removeItem(key)",
        [SKIP_UV_FLAG, skip],
    )


async def session(page: Page) -> Any:
    """``GET /auth/session`` in the page's context: the session, or ``None``."""
    return await (await page.request.get("/auth/session")).json()


ANSWER_HEADERS = {
    "content-type": "application/x-www-form-urlencoded",
    "x-auth-return-redirect": "1",
}
"""The headers of webauthn.js's answer (it asks for ``{"url"}`` instead of a redirect)."""


async def capture_answers(page: Page) -> list[tuple[str, str]]:
    """From now on, each passkey answer the page sends: its body and ``Cookie`` header."""
    captured: list[tuple[str, str]] = []

    async def keep(route: Route) -> None:
        cookie = await route.request.header_value("cookie")
        captured.append((route.request.post_data or "", cookie or ""))
        await route.continue_()

    await page.route("**/auth/callback/passkey", keep)
    return captured


async def replay_answer(base: str, body: str, cookie: str) -> httpx.Response:
    """Send a captured answer again from an HTTP client of an attacker's, with the cookies
    it was captured with."""
    async with httpx.AsyncClient(base_url=base, timeout=10) as attacker:
        return await attacker.post(
            "/auth/callback/passkey", headers={**ANSWER_HEADERS, "cookie": cookie}, content=body
        )


async def expect_used_page(page: Page, url: str) -> None:
    """The error page the refusal points to says the passkey request was already used."""
    await page.goto(url)
    await expect(page.get_by_role("heading", level=1)).to_have_text("Passkey not accepted")
    await expect(page.locator(".authui-text").first).to_contain_text("already used")
