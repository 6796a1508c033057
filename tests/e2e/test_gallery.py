"""The gallery: a screenshot of every built-in page in every shipped pack, light and dark.

Each run writes ``docs/assets/gallery/<pack>-<page>-<scheme>.png`` (900 wide, the whole
page: at least 900 high), which ``docs/gallery.md`` shows. The pictures are meant to be
the same from run to run: no animation, no caret, and the pages that print the site's
host (verify-request, and the confirmation page a sign-in link opens) are asked for with
the demo's usual host (``localhost:5000``, ``scripts/demo``) rather than the test
server's random port. The PNGs are recompressed at zlib's best level to keep them small.

The account center's pages (``<pack>-account-<page>-<scheme>.png``, and the overview on a
phone, 375 wide) show the demo user of a demo of their own (a fresh database), set up once:
signed in on a laptop, where they added a passkey and named it "Work laptop", and on a
phone. Every picture is taken in that laptop's session, so the lists are the same in every
pack; the times the pages print are shown as ``PINNED_TIME`` (they are the run's own).

Two-step verification (``<pack>-account-password-…``, ``<pack>-account-two-factor-…``,
``<pack>-mfa-<way>-…``): the same demo user, in a sign-in of its own, sets up an
authenticator app (the QR code and the key, then the recovery codes), turns their passkey
on as a second step, signs out and in again and is asked for the second step in each of
its three ways; then it is all undone, so every pack starts alike. The key, the QR code
and the recovery codes are random: the pictures show ``PINNED_KEY``'s and
``PINNED_RECOVERY_CODES`` instead.
"""

from __future__ import annotations

import asyncio
import re
import struct
import tempfile
import time
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import pytest
import pytest_asyncio

from authui.adapters.sqlalchemy import SQLAlchemyAdapter
from authui.mfa import totp
from authui.mfa.qr import qr_svg
from tests.e2e.account_support import SESSION_COOKIE
from tests.e2e.conftest import (
    ROOT,
    SCHEMES,
    SHIPPED_PACKS,
    choose_theme,
    demo_env,
    demo_page,
    demo_site,
    fill_sign_in,
    guarded_context,
    sign_in_demo,
)
from tests.e2e.password_support import (
    ACCOUNT_CARD,
    COMMON_PASSWORD,
    MFA_PAGE,
    AuthenticatorApp,
    press,
    read_key,
    recovery_codes,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.async_api import Browser, Page, Route

    from tests.e2e.conftest import NewContext

GALLERY = ROOT / "docs" / "assets" / "gallery"
SIZE = 900
SIGNED_OUT_PAGES = {
    "signin": "/auth/signin",
    "signout": "/auth/signout",
    "error": "/auth/error?error=AccessDenied",
    "verify-request": "/auth/verify-request",
    "confirm-signin": f"/auth/callback/email?token={'0' * 64}&email=ada%40example.com",
    "password-signup": "/auth/password/signup",
    "password-sent": "/auth/password/sent?kind=signup",
    "password-forgot": "/auth/password/forgot",
    "password-reset": f"/auth/password/reset?user=1&token={'0' * 64}",
}
"""The sign-up page is shown after a refused (common) password."""
SIGNED_IN_PAGES = {"new-user": "/auth/new-user"}
PAGES = (*SIGNED_OUT_PAGES, *SIGNED_IN_PAGES)
"""The page names in the file names; ``docs/gallery.md`` uses exactly these."""
SHOWN_HOST = "localhost:5000"
"""The host the verify-request and confirmation pages name: the demo's own
(``scripts/demo``)."""
NAMING_THE_HOST = re.compile(r"/auth/(verify-request|callback/email\?.*)$")
"""The pages that name the host."""
ACCOUNT_PAGES = {
    "account": "/auth/account",
    "account-profile": "/auth/account/profile",
    "account-connections": "/auth/account/connections",
    "account-passkeys": "/auth/account/passkeys?notice=passkey-renamed",
    "account-sessions": "/auth/account/sessions",
    "account-activity": "/auth/account/activity",
    "account-delete": "/auth/account/delete",
    "account-reauthenticate": "/auth/account/reauthenticate?callbackUrl=/auth/account/delete",
    "account-confirm-email": "/auth/account/email?"
    + urlencode({"user": "1", "email": "demo.new@example.com", "token": "0" * 64}),
    "account-deleted": "/auth/account/deleted",
}
"""The account center's pages in the file names (``docs/gallery.md`` uses exactly these),
and where each is; the passkeys page with the notice of a renamed passkey. The profile
page is shown after a refused picture address."""
PHONE = (375, 812)
"""The phone's viewport: the account overview is also shown at this width
(``<pack>-account-phone-<scheme>.png``)."""
LAPTOP_AGENT = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36"
)
PHONE_AGENT = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
)
"""The browsers the account holder uses (the sessions page names them)."""
PINNED_TIME = "Jan 15, 2026, 9:30\u202fAM UTC"
PIN_TIMES = r"""(pinned) => {
  const time = /[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\u202f[AP]M UTC/g;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    node.nodeValue = node.nodeValue.replace(time, pinned);
  }
}"""
"""Show every time a page prints (``Nov 27, 2026, 9:51 AM UTC``) as ``PINNED_TIME``."""
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
BYTES_PER_PIXEL = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
"""PNG colour type → bytes per pixel at a bit depth of 8."""


def gallery_file(pack: str, page: str, scheme: str) -> Path:
    return GALLERY / f"{pack}-{page}-{scheme}.png"


def png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """The chunks of a PNG as (type, data); raises ``ValueError`` if it is not a sound PNG."""
    if not data.startswith(PNG_SIGNATURE):
        raise ValueError("no PNG signature")
    chunks = []
    offset = len(PNG_SIGNATURE)
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        body = data[offset + 8 : offset + 8 + length]
        (crc,) = struct.unpack(">I", data[offset + 8 + length : offset + 12 + length])
        if len(body) != length or zlib.crc32(kind + body) != crc:
            raise ValueError(f"chunk {kind!r} at {offset} is cut short or fails its CRC")
        chunks.append((kind, body))
        offset += 12 + length
    if not chunks or chunks[0][0] != b"IHDR" or chunks[-1][0] != b"IEND":
        raise ValueError("the chunks do not run from IHDR to IEND")
    return chunks


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height, after checking every chunk and the pixel data's length."""
    chunks = png_chunks(data)
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if depth != 8 or colour not in BYTES_PER_PIXEL or interlace != 0:
        raise ValueError(f"unexpected PNG format: depth {depth}, colour type {colour}")
    pixels = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    if len(pixels) != height * (1 + width * BYTES_PER_PIXEL[colour]):
        raise ValueError("the pixel data does not fill the image")
    return width, height


def recompressed(data: bytes) -> bytes:
    """The same PNG with its pixel data in one IDAT chunk at zlib's best compression."""
    chunks = png_chunks(data)
    pixels = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    out = [PNG_SIGNATURE]
    pixels_written = False
    for kind, body in chunks:
        if kind == b"IDAT":
            if pixels_written:
                continue
            body = zlib.compress(pixels, 9)
            pixels_written = True
        out.append(struct.pack(">I", len(body)) + kind + body)
        out.append(struct.pack(">I", zlib.crc32(kind + body)))
    return b"".join(out)


def save_png(target: Path, picture: bytes) -> None:
    target.write_bytes(recompressed(picture))


def check_png(target: Path, written_after: float, size: tuple[int, int] = (SIZE, SIZE)) -> None:
    """``target`` exists, was written after ``written_after`` and is a sound PNG of ``size``
    (width, height)."""
    assert target.is_file(), f"{target} was not written"
    assert target.stat().st_mtime >= written_after, f"{target} is from an earlier run"
    assert png_size(target.read_bytes()) == size, target


async def screenshot(page: Page, target: Path, *, full_page: bool = False) -> None:
    """The page's viewport, or with ``full_page`` the whole page, as a stable PNG."""
    picture = await page.screenshot(
        type="png", animations="disabled", caret="hide", full_page=full_page
    )
    await asyncio.to_thread(save_png, target, picture)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("pack", SHIPPED_PACKS)
async def test_gallery_screenshots(
    new_demo_context: NewContext, demo_server: str, pack: str, scheme: str
) -> None:
    started = time.time()
    page = await demo_page(
        new_demo_context,
        viewport={"width": SIZE, "height": SIZE},
        device_scale_factor=1,
        color_scheme=scheme,
        reduced_motion="reduce",
    )

    async def shown_host(route: Route) -> None:
        # Chromium keeps its own Host header on a continued request: fetch it here instead.
        answer = await route.fetch(headers={**route.request.headers, "host": SHOWN_HOST})
        await route.fulfill(response=answer)

    await page.route(NAMING_THE_HOST, shown_host)
    await choose_theme(page, pack, scheme)
    heights: dict[str, int] = {}

    async def take(name: str) -> None:
        # The whole page: a sign-in page with every kind of provider is taller than 900.
        heights[name] = max(SIZE, await page.evaluate("document.documentElement.scrollHeight"))
        await screenshot(page, gallery_file(pack, name, scheme), full_page=True)

    for name, path in SIGNED_OUT_PAGES.items():
        await page.goto(path)
        assert page.url == demo_server + path
        if name == "verify-request":
            assert await page.get_by_role("link", name=SHOWN_HOST).count() == 1
        if name == "confirm-signin":
            assert await page.get_by_text(f"to {SHOWN_HOST} as ada@example.com").count() == 1
        if name == "password-signup":
            await page.wait_for_function("() => window.htmx !== undefined")
            await page.get_by_label("Name (optional)").fill("Ada Lovelace")
            await page.get_by_label("Email").fill("ada@example.com")
            await page.get_by_label("Password").fill(COMMON_PASSWORD)
            await page.get_by_role("button", name="Create account").click()
            await page.locator('#authui-signup-password[aria-invalid="true"]').wait_for()
        await take(name)
    await sign_in_demo(page, demo_server, "/profile")
    for name, path in SIGNED_IN_PAGES.items():
        await page.goto(path)
        assert page.url == demo_server + path
        await take(name)

    for name in PAGES:
        check_png(gallery_file(pack, name, scheme), started - 1, (SIZE, heights[name]))


# --- the account center -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def account_demo_site() -> Iterator[tuple[str, Path]]:
    """A demo of the account pictures' own, on a fresh database: its URL at ``localhost``
    (passkeys need a host name) and its SQLite file."""
    with (
        tempfile.TemporaryDirectory(prefix="authui-gallery-") as folder,
        demo_site("quart", demo_env(Path(folder) / "demo.db")) as url,
    ):
        yield url.replace("127.0.0.1", "localhost"), Path(folder) / "demo.db"


@pytest.fixture(scope="module")
def account_demo(account_demo_site: tuple[str, Path]) -> str:
    return account_demo_site[0]


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def account_holder(browser: Browser, account_demo: str) -> dict[str, Any]:
    """The demo user signed in on a phone, then on a laptop where they add a passkey and
    name it "Work laptop"; the laptop's storage state (its session cookie)."""
    escaped: list[str] = []
    phone = await guarded_context(browser, account_demo, escaped, user_agent=PHONE_AGENT)
    page = await phone.new_page()
    await sign_in_demo(page, account_demo, "/profile")
    await phone.close()

    laptop = await guarded_context(browser, account_demo, escaped, user_agent=LAPTOP_AGENT)
    page = await laptop.new_page()
    cdp = await laptop.new_cdp_session(page)
    await cdp.send("WebAuthn.enable", {"enableUI": False})
    await cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    await page.goto("/auth/signin?" + urlencode({"callbackUrl": "/auth/account/passkeys"}))
    await fill_sign_in(page, "demo", "demo")
    await page.wait_for_url(account_demo + "/auth/account/passkeys")
    await page.wait_for_function("() => window.authui && window.authui.registerPasskey")
    await page.get_by_role("button", name="Add a passkey").click()
    await page.locator("#authui-passkeys").wait_for()
    await page.get_by_label("Name").fill("Work laptop")
    await page.get_by_role("button", name="Rename").click()
    await page.get_by_role("button", name="Delete Work laptop").wait_for()
    state: dict[str, Any] = dict(await laptop.storage_state())
    await laptop.close()
    assert not escaped, f"the browser tried to leave loopback: {escaped}"
    return state


async def account_page(
    new_demo_context: NewContext,
    account_demo: str,
    account_holder: dict[str, Any],
    scheme: str,
    size: tuple[int, int],
) -> Page:
    """A page in the account holder's laptop session."""
    width, height = size
    return await demo_page(
        new_demo_context,
        storage_state=account_holder,
        user_agent=LAPTOP_AGENT,
        viewport={"width": width, "height": height},
        device_scale_factor=1,
        color_scheme=scheme,
        reduced_motion="reduce",
    )


async def take_account_page(page: Page, target: Path, size: tuple[int, int]) -> int:
    """The whole page, its times pinned, into ``target``; the picture's height."""
    await page.evaluate(PIN_TIMES, PINNED_TIME)
    height = max(size[1], await page.evaluate("document.documentElement.scrollHeight"))
    await screenshot(page, target, full_page=True)
    return int(height)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("pack", SHIPPED_PACKS)
async def test_account_gallery_screenshots(
    new_demo_context: NewContext,
    account_demo: str,
    account_holder: dict[str, Any],
    pack: str,
    scheme: str,
) -> None:
    started = time.time()
    desktop = (SIZE, SIZE)
    page = await account_page(new_demo_context, account_demo, account_holder, scheme, desktop)
    query = urlencode({"theme": pack, "scheme": scheme, "next": "/"})
    await page.goto(f"{account_demo}/theme?{query}")
    heights: dict[str, int] = {}
    for name, path in ACCOUNT_PAGES.items():
        await page.goto(account_demo + path)
        assert page.url == account_demo + path
        if name == "account-profile":
            await page.wait_for_function("() => window.htmx !== undefined")
            await page.get_by_label("Picture (an https:// address)").fill("http://example.com/me")
            await page.get_by_role("button", name="Save", exact=True).click()
            await page.locator('#authui-profile-image[aria-invalid="true"]').wait_for()
        if name == "account-sessions":
            assert await page.locator("#authui-sessions > li").count() == 2
        if name == "account-passkeys":
            await page.get_by_role("button", name="Add a passkey").wait_for()
        heights[name] = await take_account_page(page, gallery_file(pack, name, scheme), desktop)

    phone = await account_page(new_demo_context, account_demo, account_holder, scheme, PHONE)
    await phone.goto(f"{account_demo}/theme?{query}")
    await phone.goto(account_demo + "/auth/account")
    phone_height = await take_account_page(
        phone, gallery_file(pack, "account-phone", scheme), PHONE
    )

    for name in ACCOUNT_PAGES:
        check_png(gallery_file(pack, name, scheme), started - 1, (SIZE, heights[name]))
    check_png(gallery_file(pack, "account-phone", scheme), started - 1, (PHONE[0], phone_height))


# --- two-step verification --------------------------------------------------------------------


TWO_STEP_PAGES = {
    "account-password": "/auth/account/password",
    "account-two-factor-setup": "/auth/account/two-factor",
    "account-two-factor-codes": "/auth/account/two-factor",
    "mfa-totp": MFA_PAGE,
    "mfa-recovery": f"{MFA_PAGE}?method=recovery",
    "mfa-passkey": f"{MFA_PAGE}?method=passkey",
}
"""The two-step pictures in the file names (``docs/gallery.md`` uses exactly these), and
where each is: the password page (the demo user has none yet), the two-step page with the
set-up's QR code and then with the recovery codes, the second step's page in its three
ways."""
PINNED_KEY = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
PINNED_QR = """(svg) => { document.querySelector("svg.authui-qr").outerHTML = svg; }"""
PINNED_RECOVERY_CODES = [
    "7k2mq-x4hpd",
    "c9rtw-3nf6a",
    "pj5xe-hb8ku",
    "2wdng-q7vym",
    "tf4ca-9rk3s",
    "m6bxj-w2e5p",
    "ud8hs-6tqzn",
    "3ygvk-pc4md",
    "hn7ra-5jx2w",
    "e5qpt-k8bfc",
]
PIN_RECOVERY_CODES = """(codes) => {
  document.querySelectorAll("#authui-recovery-codes code").forEach((code, i) => {
    code.textContent = codes[i];
  });
}"""
DEMO_USER_ID = "1"


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("pack", SHIPPED_PACKS)
async def test_two_step_gallery_screenshots(
    new_demo_context: NewContext,
    account_demo_site: tuple[str, Path],
    account_holder: dict[str, Any],
    pack: str,
    scheme: str,
) -> None:
    """(``account_holder`` gave the demo user the passkey it turns on as a second step.)"""
    started = time.time()
    url, database = account_demo_site
    desktop = (SIZE, SIZE)
    page = await demo_page(
        new_demo_context,
        user_agent=LAPTOP_AGENT,
        viewport={"width": SIZE, "height": SIZE},
        device_scale_factor=1,
        color_scheme=scheme,
        reduced_motion="reduce",
    )
    query = urlencode({"theme": pack, "scheme": scheme, "next": "/"})
    await page.goto(f"{url}/theme?{query}")
    heights: dict[str, int] = {}

    async def take(name: str) -> None:
        assert page.url == url + TWO_STEP_PAGES[name], page.url
        heights[name] = await take_account_page(page, gallery_file(pack, name, scheme), desktop)

    async def send(button: str) -> None:
        await press(page, True, page.get_by_role("button", name=button), ACCOUNT_CARD)

    try:
        then = urlencode({"callbackUrl": "/auth/account/password"})
        await page.goto(f"{url}/auth/signin?{then}")
        await fill_sign_in(page, "demo", "demo")
        await page.wait_for_url(url + "/auth/account/password")
        await take("account-password")

        await page.goto(url + "/auth/account/two-factor")
        await send("Set up an authenticator app")
        app = AuthenticatorApp(await read_key(page))
        await page.evaluate(PINNED_QR, pinned_qr())
        await page.locator("#authui-totp-key").evaluate(
            "(key, text) => { key.textContent = text; }", totp.grouped(PINNED_KEY)
        )
        await take("account-two-factor-setup")
        await page.get_by_label("Code from the app").fill(await app.next_code())
        await send("Confirm and turn on")
        await recovery_codes(page)
        await page.evaluate(PIN_RECOVERY_CODES, PINNED_RECOVERY_CODES)
        await take("account-two-factor-codes")
        await send("Use my passkeys as the second step")
        await page.get_by_text("On: one of your passkeys can confirm a sign-in.").wait_for()

        await page.goto(url + "/")
        await page.get_by_role("banner").get_by_role("button", name="Sign out").click()
        await page.wait_for_url(url + "/")
        await page.goto(f"{url}/auth/signin?" + urlencode({"callbackUrl": "/profile"}))
        await fill_sign_in(page, "demo", "demo")
        await page.wait_for_url(f"**{MFA_PAGE}")
        for name in ("mfa-totp", "mfa-recovery", "mfa-passkey"):
            if name != "mfa-totp":
                await page.goto(url + TWO_STEP_PAGES[name])
            await take(name)
    finally:
        await undo_two_step(page, database)

    for name in TWO_STEP_PAGES:
        check_png(gallery_file(pack, name, scheme), started - 1, (SIZE, heights[name]))


def pinned_qr() -> str:
    """The set-up's QR code for ``PINNED_KEY``, as the page draws one."""
    uri = totp.provisioning_uri(PINNED_KEY, "demo@example.com", "localhost")
    return str(qr_svg(uri, "QR code to scan with your authenticator app"))


async def undo_two_step(page: Page, database: Path) -> None:
    """The demo user as before: no second step, and no session of this context's."""
    async with SQLAlchemyAdapter(f"sqlite+aiosqlite:///{database}") as adapter:
        await adapter.delete_mfa(DEMO_USER_ID)
        await adapter.delete_trusted_browsers(DEMO_USER_ID, None)
        for cookie in await page.context.cookies():
            if cookie["name"] == SESSION_COOKIE:
                await adapter.delete_session(cookie["value"])
