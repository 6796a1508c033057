"""What the error page and the sign-in page say for every error type, in every theme pack.

Every client-safe type (and ``Configuration``) gets, on ``/auth/error?error=<type>``, a
heading and a sentence saying what happened and what to do next, with a 4xx or 5xx
status; an unknown value gets Auth.js's generic "Error" (200) with a sentence of its own.
The sign-in page's ``?error=`` shows a message of its own for every type of kind
``signIn`` and every client-safe type. The sentences go through the translation
catalogue.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from authui import Theme
from authui.errors import ERROR_TYPES
from authui.pages import SIGNIN_ERRORS, UNKNOWN_ERROR_PAGE
from authui.pages.packs import installed_packs
from authui.testing import AuthClient
from tests.conftest import make_config
from tests.i18n.support import write_catalogue

PACKS = sorted(installed_packs())
CLIENT_SAFE = sorted({t.type for t in ERROR_TYPES if t.client_safe})
ERROR_PAGE_TYPES = [*CLIENT_SAFE, "Configuration"]
SIGN_IN_TYPES = sorted({t.type for t in ERROR_TYPES if t.kind == "signIn"} | set(CLIENT_SAFE))
FALLBACK_TEXT = UNKNOWN_ERROR_PAGE[2]


def client_for(pack: str) -> AuthClient:
    return AuthClient(make_config(theme=Theme(pack=pack)))


def texts(page: str, css_class: str) -> list[str]:
    """The text of the elements with ``css_class`` (tags stripped, entities decoded)."""
    found = re.findall(rf'class="{css_class}"[^>]*>(.*?)</', page, re.DOTALL)
    return [html.unescape(re.sub(r"<[^>]+>", "", t)).strip() for t in found]


@pytest.mark.parametrize("pack", PACKS)
@pytest.mark.parametrize("error", ERROR_PAGE_TYPES)
async def test_the_error_page_says_what_happened(pack: str, error: str) -> None:
    page = await client_for(pack).get(f"error?error={error}")
    assert 400 <= page.status < 600, (error, page.status)
    [heading] = texts(page.text, "authui-heading")
    assert heading
    assert heading != "Error", "the generic heading"
    sentence = texts(page.text, "authui-text")[0]
    assert sentence.endswith("."), sentence
    assert sentence != FALLBACK_TEXT


@pytest.mark.parametrize("pack", PACKS)
async def test_an_unknown_error_gets_the_generic_page_with_a_sentence(pack: str) -> None:
    page = await client_for(pack).get("error?error=NoSuchError")
    assert page.status == 200  # Auth.js's generic page
    assert texts(page.text, "authui-heading") == ["Error"]
    assert texts(page.text, "authui-text")[0] == FALLBACK_TEXT
    assert "Go back to the site" in page.text


@pytest.mark.parametrize("pack", PACKS)
@pytest.mark.parametrize("error", SIGN_IN_TYPES)
async def test_the_sign_in_page_says_what_happened(pack: str, error: str) -> None:
    page = await client_for(pack).get(f"signin?error={error}")
    assert page.status == 200
    [message] = texts(page.text, "authui-alert authui-alert-error")
    assert message
    assert message != SIGNIN_ERRORS["default"]


async def test_the_sentences_are_translated(tmp_path: Path) -> None:
    client = client_for("base")
    english = texts((await client.get("error?error=PasskeyAlreadyRegistered")).text, "authui-text")
    alert = texts(
        (await client.get("signin?error=AccountNotLinked")).text, "authui-alert authui-alert-error"
    )
    catalogue = {english[0]: "Ce passkey est déjà enregistré.", alert[0]: "Autre compte."}
    folder = write_catalogue(tmp_path, "en", catalogue)  # the app's own English
    client = AuthClient(make_config(theme=Theme(pack="base"), translations=folder))
    page = await client.get("error?error=PasskeyAlreadyRegistered")
    assert texts(page.text, "authui-text")[0] == "Ce passkey est déjà enregistré."
    page = await client.get("signin?error=AccountNotLinked")
    assert texts(page.text, "authui-alert authui-alert-error") == ["Autre compte."]
