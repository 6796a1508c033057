"""Pages: the new-user page, security headers, static files, translation, packs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from authui import Callbacks, Pages, Theme
from authui.pages import packs
from authui.pages.packs import ThemePack, installed_packs
from authui.providers.base import Provider
from authui.testing import AuthClient
from tests.conftest import make_config
from tests.i18n.support import write_catalogue

ROOT = Path(__file__).resolve().parents[2]


def nonce_of(response: Any) -> str:
    match = re.search(r"'nonce-([^']+)'", response.header("content-security-policy") or "")
    assert match is not None
    return match.group(1)


# -- new-user ---------------------------------------------------------------------------------


async def test_new_user_page_sets_the_display_name() -> None:
    seen: list[Any] = []

    def jwt(token: dict[str, Any], trigger: str | None = None, session: Any = None) -> Any:
        seen.append((trigger, session))
        return token

    client = AuthClient(make_config(callbacks=Callbacks(jwt=jwt)))
    page = await client.get("new-user")
    assert page.header("location") == "http://localhost:3000/auth/signin"
    await client.sign_in_with_credentials(username="ada", password="correct horse")
    page = await client.get("new-user?callbackUrl=%2Fhome")
    assert page.status == 200
    assert "<title>Welcome</title>" in page.text
    assert 'value="Ada Lovelace"' in page.text
    token = client.cookies["authjs.csrf-token"].split("%7C")[0]
    done = await client.post("new-user", form={"csrfToken": token, "name": "  Ada   King "})
    assert done.header("location") == "http://localhost:3000/home"
    assert seen[-1] == ("update", {"user": {"name": "Ada King"}})
    assert (await client.get("session")).data()["user"]["name"] == "Ada King"


async def test_new_user_page_refuses_empty_names_and_missing_csrf() -> None:
    client = AuthClient(make_config())
    await client.sign_in_with_credentials(username="ada", password="correct horse")
    token = await client.csrf_token()
    empty = await client.post("new-user", form={"csrfToken": token, "name": "   "})
    assert empty.status == 422
    assert 'role="alert"' in empty.text
    assert 'aria-invalid="true"' in empty.text
    forged = await client.post("new-user", form={"csrfToken": "x", "name": "Mallory"})
    assert forged.header("location") == "http://localhost:3000/auth/signin?error=MissingCSRF"
    assert (await client.get("session")).data()["user"]["name"] == "Ada Lovelace"


async def test_new_user_custom_page() -> None:
    client = AuthClient(make_config(pages=Pages(new_user="/welcome")))
    assert (await client.get("new-user")).header("location") == "/welcome"


# -- hardening --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["signin", "signout", "error?error=AccessDenied", "verify-request"]
)
async def test_pages_are_hardened(path: str) -> None:
    response = await AuthClient(make_config()).get(path)
    csp = response.header("content-security-policy") or ""
    assert "frame-ancestors 'none'" in csp
    assert "'unsafe-inline'" not in csp
    assert "script-src 'self' 'nonce-" in csp
    assert response.header("referrer-policy") == "no-referrer"
    assert response.header("cache-control") == "no-store"
    assert response.header("x-frame-options") == "DENY"
    nonce = nonce_of(response)
    scripts = re.findall(r"<script[^>]*>", response.text)
    assert scripts
    assert all(f'nonce="{nonce}"' in s and "src=" in s for s in scripts)
    assert "style=" not in response.text.replace('<style nonce="', "")


async def test_each_page_gets_a_fresh_nonce() -> None:
    client = AuthClient(make_config())
    assert nonce_of(await client.get("signin")) != nonce_of(await client.get("signin"))


async def test_brand_colours_come_in_a_stylesheet_of_their_own() -> None:
    client = AuthClient(make_config(theme=Theme(brand_color="#ff0066", button_text="#000")))
    response = await client.get("signin")
    links = re.findall(r'<link rel="stylesheet" href="([^"]+)">', response.text)
    assert links[-1].startswith("/auth/_static/theme.")  # after the pack's, so it wins
    served = await client.get(links[-1].removeprefix("/auth/"))
    assert served.status == 200
    assert served.header("content-type") == "text/css; charset=utf-8"
    assert served.header("cache-control") == "public, max-age=31536000, immutable"
    assert served.text == ":root {\n  --authui-brand: #ff0066;\n  --authui-brand-text: #000;\n}\n"
    # Other colours, another file name: a browser never keeps the old ones.
    other = AuthClient(make_config(theme=Theme(brand_color="#00aa66")))
    again = (await other.get("signin")).text
    assert links[-1] not in again
    plain = (await AuthClient(make_config()).get("signin")).text
    assert "/_static/theme." not in plain


# -- static files -----------------------------------------------------------------------------


async def test_static_files_have_hashed_names_and_long_caching() -> None:
    client = AuthClient(make_config())
    html = (await client.get("signin")).text
    sources = re.findall(r'src="(/auth/_static/[^"]+)"', html)
    assert any(
        re.fullmatch(r"/auth/_static/htmx-2\.0\.11\.min\.[0-9a-f]{10}\.js", s) for s in sources
    )
    for source in sources:
        response = await client.get(source.removeprefix("/auth/"))
        assert response.status == 200
        assert response.header("cache-control") == "public, max-age=31536000, immutable"
        assert "javascript" in (response.header("content-type") or "")
    missing = await client.get("_static/nope.0000000000.js")
    assert missing.status == 404


def test_vendored_htmx_version_matches_its_file_name() -> None:
    files = list((ROOT / "static").glob("htmx-*.min.js"))
    assert len(files) == 1
    version = re.fullmatch(r"htmx-(\d+\.\d+\.\d+)\.min\.js", files[0].name)
    assert version is not None
    assert f'version:"{version.group(1)}"' in files[0].read_text()


# -- translation ------------------------------------------------------------------------------


async def test_every_visible_string_goes_through_the_catalogue(tmp_path: Path) -> None:
    shouting = {"Sign in": "SIGN IN", "Continue with {name}": "CONTINUE WITH {name}"}
    folder = write_catalogue(tmp_path, "en", shouting)
    github = Provider(id="github", name="GitHub", type="oauth")
    config = make_config(providers=[github], translations=folder)
    html = (await AuthClient(config).get("signin")).text
    assert "CONTINUE WITH GitHub" in html
    assert ">SIGN IN</h1>" in html


# -- packs ------------------------------------------------------------------------------------


def test_shipped_packs() -> None:
    assert {"base", "default", "terminal"} <= set(installed_packs())
    assert installed_packs()["base"].parent is None


async def test_a_pack_installed_through_an_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "signout.html").write_text(
        '{% extends "authui-base/signout.html" %}{% block content %}<p id="plugin">plugin pack'
        "</p>{{ super() }}{% endblock %}"
    )

    class EntryPoint:
        name = "plugin"
        value = "plugin_theme:pack"

        def load(self) -> ThemePack:
            return ThemePack(name="folder-name", directory=tmp_path, label="Plugin")

    def entry_points(group: str) -> list[EntryPoint]:
        return [EntryPoint()] if group == "authui.themes" else []

    monkeypatch.setattr("authui.pages.packs.metadata.entry_points", entry_points)
    packs.installed_packs.cache_clear()
    try:
        client = AuthClient(make_config(theme=Theme(pack="plugin")))
        html = (await client.get("signout")).text
        assert '<p id="plugin">plugin pack</p>' in html
        assert 'name="csrfToken"' in html
    finally:
        packs.installed_packs.cache_clear()


async def test_unknown_pack_is_a_configuration_error(caplog: pytest.LogCaptureFixture) -> None:
    response = await AuthClient(make_config(theme=Theme(pack="nope"))).get("signin")
    assert response.status == 500
    assert "installed packs" in caplog.text
