"""The gallery: a screenshot of every built-in page in every shipped pack, light and dark.

Each run writes ``docs/assets/gallery/<pack>-<page>-<scheme>.png`` (900 wide, the whole
page: at least 900 high), which ``docs/gallery.md`` shows. The pictures are meant to be
the same from run to run: no animation, no caret, and the pages that print the site's
host (verify-request, and the confirmation page a sign-in link opens) are asked for with
the demo's usual host (``localhost:5000``, ``scripts/demo``) rather than the test
server's random port. The PNGs are recompressed at zlib's best level to keep them small.
"""

from __future__ import annotations

import asyncio
import re
import struct
import time
import zlib
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import ROOT, SCHEMES, SHIPPED_PACKS, choose_theme, demo_page, sign_in_demo

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.async_api import Page, Route

    from tests.e2e.conftest import NewContext

GALLERY = ROOT / "docs" / "assets" / "gallery"
SIZE = 900
SIGNED_OUT_PAGES = {
    "signin": "/auth/signin",
    "signout": "/auth/signout",
    "error": "/auth/error?error=AccessDenied",
    "verify-request": "/auth/verify-request",
    "confirm-signin": f"/auth/callback/email?token={'0' * 64}&email=ada%40example.com",
}
SIGNED_IN_PAGES = {"new-user": "/auth/new-user"}
PAGES = (*SIGNED_OUT_PAGES, *SIGNED_IN_PAGES)
"""The page names in the file names; ``docs/gallery.md`` uses exactly these."""
SHOWN_HOST = "localhost:5000"
"""The host the verify-request and confirmation pages name: the demo's own
(``scripts/demo``)."""
NAMING_THE_HOST = re.compile(r"/auth/(verify-request|callback/email\?.*)$")
"""The pages that name the host."""
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
        await take(name)
    await sign_in_demo(page, demo_server, "/profile")
    for name, path in SIGNED_IN_PAGES.items():
        await page.goto(path)
        assert page.url == demo_server + path
        await take(name)

    for name in PAGES:
        check_png(gallery_file(pack, name, scheme), started - 1, (SIZE, heights[name]))
