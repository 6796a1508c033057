"""Which language a request is answered in, at request level: the menu's ``?lang=`` (kept
in the ``authui.locale`` cookie), then that cookie, then ``Accept-Language`` matched
against the configured locales, then the default; the page says it in ``<html lang dir>``
and offers the others in its language menu."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from authui import Auth
from authui.errors import AuthError
from authui.http import Headers, Request, Response
from authui.i18n import SHIPPED
from authui.i18n.languages import language_of as configured_language
from authui.i18n.languages import preferences
from authui.options import resolve
from authui.providers.base import Provider
from authui.testing import AuthClient
from tests.conftest import make_config
from tests.i18n.support import write_catalogue

HTML_TAG = re.compile(r"<html ([^>]*)>")
MENU_LINK = re.compile(
    r'<a class="authui-link authui-languages-link" href="([^"]+)" lang="([^"]+)"'
)


def html_attributes(page: str) -> dict[str, str]:
    """The attributes of a page's ``<html>`` element."""
    found = HTML_TAG.search(page)
    assert found is not None
    return dict(re.findall(r'([a-z-]+)="([^"]*)"', found.group(1)))


async def language_of(client: AuthClient, path: str = "signin", **headers: str) -> str:
    page = await client.get(path, headers=headers)
    return html_attributes(page.text)["lang"]


@pytest.mark.parametrize(
    ("accept", "chosen"),
    [
        ("de-DE,de;q=0.9,en;q=0.8", "de"),
        ("de-AT", "de"),  # a region authui has no catalogue of: its language
        ("zh-CN,zh;q=0.9", "zh-Hans"),  # Simplified Chinese, by its likely script
        ("zh-TW", "en"),  # Traditional characters: no match, the default
        ("pt-PT", "pt-BR"),
        ("pt-BR", "pt-BR"),
        ("fr;q=0.5, ja;q=0.9", "ja"),  # weights, not order
        ("sv, nl;q=0.1", "nl"),
        ("xx-invalid, *", "en"),
        ("", "en"),
        ("es;q=0, it", "it"),  # weight 0: not wanted
    ],
)
async def test_accept_language_picks_the_closest_configured_locale(
    accept: str, chosen: str
) -> None:
    assert await language_of(AuthClient(make_config()), **{"accept-language": accept}) == chosen


async def test_a_page_says_its_language_and_direction() -> None:
    client = AuthClient(make_config())
    for accept, expected in [("ar", ("ar", "rtl")), ("he", ("he", "rtl")), ("ja", ("ja", "ltr"))]:
        page = await client.get("signin", headers={"accept-language": accept})
        attributes = html_attributes(page.text)
        assert (attributes["lang"], attributes["dir"]) == expected


async def test_the_menu_choice_is_kept_and_wins_over_the_browser() -> None:
    client = AuthClient(make_config())
    german = {"accept-language": "de"}
    page = await client.get("signin?lang=fr&callbackUrl=/orders", headers=german)
    assert html_attributes(page.text)["lang"] == "fr"
    [kept] = [c for c in page.header_all("set-cookie") if c.startswith("authui.locale=")]
    assert kept.startswith("authui.locale=fr;")
    assert {"HttpOnly", "SameSite=Lax", "Max-Age=31536000"} <= set(kept.split("; "))
    assert client.cookies["authui.locale"] == "fr"
    # later pages, without the parameter, keep French over the browser's German
    assert await language_of(client, "signout", **german) == "fr"
    assert await language_of(client, "error?error=Verification", **german) == "fr"


@pytest.mark.parametrize("asked", ["xx", "fr<script>", "", "en-GB-oed"])
async def test_a_lang_that_is_not_configured_is_ignored(asked: str) -> None:
    client = AuthClient(make_config())
    page = await client.get(f"signin?lang={asked}", headers={"accept-language": "es"})
    assert html_attributes(page.text)["lang"] == "es"
    assert not any(c.startswith("authui.locale=") for c in page.header_all("set-cookie"))


async def test_a_forged_locale_cookie_is_ignored() -> None:
    client = AuthClient(make_config())
    client.cookies["authui.locale"] = '"><script>alert(1)</script>'
    page = await client.get("signin", headers={"accept-language": "it"})
    assert html_attributes(page.text)["lang"] == "it"
    assert "<script>alert(1)" not in page.text


async def test_https_keeps_the_choice_in_a_secure_cookie() -> None:
    client = AuthClient(make_config(url="https://app.example/auth"), origin="https://app.example")
    page = await client.get("signin?lang=ko")
    [kept] = [c for c in page.header_all("set-cookie") if "authui.locale=" in c]
    assert kept.startswith("__Secure-authui.locale=ko;")
    assert "Secure" in kept.split("; ")
    assert await language_of(client, "signout") == "ko"


async def test_the_menu_links_every_locale_to_this_page_keeping_its_query() -> None:
    client = AuthClient(make_config(locales=["en", "de", "ar"]))
    page = await client.get("signin?callbackUrl=%2Forders%3Fid%3D7&lang=de")
    links = MENU_LINK.findall(page.text)
    assert [tag for _, tag in links] == ["en", "de", "ar"]
    for href, tag in links:
        parts = urlsplit(href.replace("&amp;", "&"))
        assert (parts.netloc, parts.path) == ("", "")  # this page, another query
        assert dict(parse_qsl(parts.query)) == {"callbackUrl": "/orders?id=7", "lang": tag}
    assert 'aria-current="true">Deutsch</a>' in page.text
    assert ">العربية</a>" in page.text


async def test_the_menu_writes_nothing_of_the_requests_path() -> None:
    """A path shaped as another site (``//evil.example/…``) gets the error page, whose
    language links stay on this page: a query only."""
    url = "http://localhost:3000//evil.example/auth/signin?callbackUrl=/x"
    request = Request(method="GET", url=url, headers=Headers([("accept", "text/html")]))
    page = await Auth(request, make_config())
    assert isinstance(page, Response)
    assert page.status == 400
    links = [href for href, _ in MENU_LINK.findall(page.text)]
    assert len(links) == len(SHIPPED)
    assert all(href.startswith("?") for href in links)
    assert "evil" not in "".join(links)


async def test_no_menu_with_one_locale_or_on_the_answer_to_a_post() -> None:
    only_english = AuthClient(make_config(locales=["en"]))
    assert "authui-languages" not in (await only_english.get("signin")).text
    client = AuthClient(make_config())
    form = {"csrfToken": await client.csrf_token(), "username": "nobody", "password": "x"}
    refused = await client.post("callback/credentials", form=form, headers={"HX-Request": "true"})
    assert "authui-languages-link" not in refused.text


async def test_the_configured_locales_limit_the_choice() -> None:
    client = AuthClient(make_config(locales=["de", "fr"], default_locale="fr"))
    assert await language_of(client, **{"accept-language": "ja, de;q=0.5"}) == "de"
    assert await language_of(client, **{"accept-language": "ja"}) == "fr"
    assert await language_of(client, "signin?lang=ja") == "fr"


def test_every_shipped_locale_is_configured_by_default() -> None:
    options = resolve(make_config())
    assert tuple(x.tag for x in options.languages.available) == SHIPPED
    assert options.languages.default.tag == "en"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"locales": ["en", "tlh"]}, "'tlh' is not a locale Babel knows"),
        ({"locales": ["en", "sv"]}, "authui has no catalogue for 'sv'"),
        ({"locales": ["en", "de"], "default_locale": "fr"}, "default_locale 'fr' is not one of"),
    ],
)
def test_a_locale_without_a_catalogue_is_a_configuration_error(
    fields: dict[str, object], message: str
) -> None:
    options = resolve(make_config(**fields))
    assert message in str(options.static_error)


async def test_a_wrong_placeholder_in_an_app_catalogue_shows_the_english(tmp_path: Path) -> None:
    folder = write_catalogue(tmp_path, "de", {"Continue with {name}": "Weiter mit {nmae}"})
    github = Provider(id="github", name="GitHub", type="oauth")
    client = AuthClient(make_config(providers=[github], translations=folder))
    page = await client.get("signin", headers={"accept-language": "de"})
    assert page.status == 200
    assert "Continue with GitHub" in page.text


async def test_an_app_adds_a_locale_and_overrides_a_message(tmp_path: Path) -> None:
    folder = write_catalogue(tmp_path, "sv", {"Sign in": "Logga in"})
    write_catalogue(folder, "de", {"Sign in": "Hereinspaziert"})
    config = make_config(locales=["en", "de", "sv"], translations=folder)
    client = AuthClient(config)
    swedish = await client.get("signin", headers={"accept-language": "sv-SE"})
    assert html_attributes(swedish.text)["lang"] == "sv"
    assert '<h1 class="authui-heading">Logga in</h1>' in swedish.text
    german = await client.get("signin", headers={"accept-language": "de"})
    assert '<h1 class="authui-heading">Hereinspaziert</h1>' in german.text


def test_a_broken_app_catalogue_is_a_configuration_error(tmp_path: Path) -> None:
    broken = tmp_path / "de" / "LC_MESSAGES" / "authui.po"
    broken.parent.mkdir(parents=True)
    broken.write_text("Sign in = Anmelden\n", "utf-8")
    options = resolve(make_config(translations=str(tmp_path)))
    assert options.static_error is not None
    assert str(broken) in str(options.static_error)
    assert isinstance(options.static_error, AuthError)


def test_accept_language_is_read_by_weight_and_bounded() -> None:
    assert preferences("da, en-gb;q=0.8, en;q=0.7") == ["da", "en-gb", "en"]
    assert preferences("en;q=abc, fr") == ["fr"]
    assert len(preferences(",".join(["de"] * 1000))) == 20


@pytest.mark.parametrize(
    ("tag", "n", "expected"),
    [
        ("en", 1, "Use at least 1 character."),
        ("en", 1000, "Use at least 1,000 characters."),
        ("de", 1000, "1.000"),
        ("pl", 2, "2 znaki"),
        ("pl", 5, "5 znaków"),
    ],
)
def test_counts_take_the_languages_plural_form_and_number_format(
    tag: str, n: int, expected: str
) -> None:
    language = configured_language(tag, ())
    text = language.ngettext("Use at least {n} character.", "Use at least {n} characters.", n)
    assert expected in text
