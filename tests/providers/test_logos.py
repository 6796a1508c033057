"""The providers' brand marks vendored in ``static/logos/`` and their record in the docs.

``scripts/update_logos`` writes both from simple-icons; these tests read what is committed:
each SVG is inert and minimal, its colours follow the contrast rule, every provider id of
Auth.js has a mark or a monogram row, the page and the files agree, and the static route
serves the marks.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from authui.pages.assets import Assets

ROOT = Path(__file__).resolve().parents[2]
LOGOS = ROOT / "static" / "logos"
DOC = ROOT / "docs" / "providers" / "logos.md"
SVG_NS = "http://www.w3.org/2000/svg"

# The 93 OAuth/OIDC provider ids of Auth.js, held here rather than read from the registry,
# which grows on its own schedule.
PROVIDER_IDS = [
    "42-school",
    "apple",
    "asgardeo",
    "atlassian",
    "auth0",
    "authentik",
    "azure-ad",
    "azure-ad-b2c",
    "azure-devops",
    "bankid-no",
    "battlenet",
    "beyondidentity",
    "bitbucket",
    "box",
    "boxyhq-saml",
    "bungie",
    "click-up",
    "cognito",
    "coinbase",
    "concept2",
    "descope",
    "discord",
    "dribbble",
    "dropbox",
    "duende-identity-server6",
    "eventbrite",
    "eveonline",
    "facebook",
    "faceit",
    "figma",
    "foursquare",
    "freshbooks",
    "frontegg",
    "fusionauth",
    "github",
    "gitlab",
    "google",
    "hubspot",
    "huggingface",
    "identity-server4",
    "instagram",
    "kakao",
    "keycloak",
    "kinde",
    "line",
    "linkedin",
    "logto",
    "mailchimp",
    "mailru",
    "mastodon",
    "mattermost",
    "medium",
    "microsoft-entra-id",
    "naver",
    "netlify",
    "netsuite",
    "nextcloud",
    "notion",
    "okta",
    "onelogin",
    "hydra",
    "osso",
    "osu",
    "passage",
    "patreon",
    "ping-id",
    "pinterest",
    "pipedrive",
    "reddit",
    "roblox",
    "salesforce",
    "simplelogin",
    "slack",
    "spotify",
    "strava",
    "threads",
    "tiktok",
    "todoist",
    "trakt",
    "twitch",
    "twitter",
    "united-effects",
    "vipps",
    "vk",
    "webex",
    "wechat",
    "wikimedia",
    "wordpress",
    "workos",
    "yandex",
    "zitadel",
    "zoho",
    "zoom",
]

WHITE = "#ffffff"
DARK_SURFACE = "#18181b"
NEUTRAL_FILL = "#1f2328"
MIN_CONTRAST = 3.0

SVG_FILES = sorted(LOGOS.glob("*.svg"))
LIGHT_FILES = [f for f in SVG_FILES if not f.stem.endswith("-dark")]


def luminance(colour: str) -> float:
    """WCAG 2 relative luminance of ``#rrggbb``."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@dataclass(frozen=True)
class Row:
    provider: str
    files: list[str]
    slug: str
    hex: str


def table() -> dict[str, Row]:
    """The rows of the page's table, by provider id."""
    rows: dict[str, Row] = {}
    for line in DOC.read_text("utf-8").splitlines():
        if not line.startswith("| `"):
            continue
        cells = re.split(r"(?<!\\) \| ", line.removeprefix("| ").removesuffix(" |"))
        assert len(cells) == 8, line
        provider, mark, slug, _title, hex_, _guidelines, _licence, _note = cells
        files = [] if mark == "monogram" else re.findall(r"`([^`]+)`", mark)
        assert mark == "monogram" or ", ".join(f"`{f}`" for f in files) == mark, line
        row = Row(provider.strip("`"), files, slug.strip("`"), hex_.strip("`"))
        assert row.provider not in rows, f"two rows for {row.provider}"
        rows[row.provider] = row
    return rows


def parse(path: Path) -> ET.Element:
    text = path.read_text("utf-8")
    assert "<!" not in text, "no doctype, entity or comment"
    return ET.fromstring(text)  # noqa: S314 - our own file, with no doctype or entity


def fill_of(path: Path) -> str:
    return parse(path)[0].attrib["fill"]


def test_the_ids_are_the_93_of_authjs() -> None:
    assert len(PROVIDER_IDS) == len(set(PROVIDER_IDS)) == 93


def test_there_are_marks() -> None:
    assert LIGHT_FILES, "static/logos/ holds no mark"


@pytest.mark.parametrize("path", SVG_FILES, ids=lambda p: p.name)
def test_an_svg_is_minimal_and_inert(path: Path) -> None:
    text = path.read_text("utf-8")
    root = parse(path)
    assert root.tag == f"{{{SVG_NS}}}svg"
    assert text.startswith(f'<svg xmlns="{SVG_NS}" ')
    assert root.attrib == {"viewBox": "0 0 24 24"}
    assert root.text is None
    assert len(root) == 1
    (path_element,) = root
    assert path_element.tag == f"{{{SVG_NS}}}path"
    assert set(path_element.attrib) == {"d", "fill"}
    assert re.fullmatch(r"#[0-9a-f]{6}", path_element.attrib["fill"])
    assert re.fullmatch(r"[MmLlHhVvCcSsQqTtAaZz0-9.,eE+\- ]+", path_element.attrib["d"])
    assert len(path_element) == 0
    assert path_element.text is None
    assert path_element.tail is None
    lowered = text.lower()
    for banned in ("script", "foreignobject", "href", "<title", "url(", "style", "<image"):
        assert banned not in lowered
    assert not re.search(r"\son[a-z]+\s*=", lowered), "no event attribute"


@pytest.mark.parametrize("path", LIGHT_FILES, ids=lambda p: p.name)
def test_colours_follow_the_contrast_rule(path: Path) -> None:
    row = table()[path.stem]
    assert re.fullmatch(r"#[0-9A-F]{6}", row.hex)
    brand = row.hex.lower()
    expected = brand if contrast(brand, WHITE) >= MIN_CONTRAST else NEUTRAL_FILL
    light = fill_of(path)
    assert light == expected
    assert contrast(light, WHITE) >= MIN_CONTRAST
    dark = path.with_name(f"{path.stem}-dark.svg")
    if contrast(light, DARK_SURFACE) < MIN_CONTRAST:
        assert dark.is_file(), f"{dark.name} is needed on a dark surface"
        assert fill_of(dark) == WHITE
        assert parse(dark)[0].attrib["d"] == parse(path)[0].attrib["d"]
    else:
        assert not dark.exists(), f"{path.name} works on both surfaces"


def test_dark_variants_have_a_light_one() -> None:
    for path in SVG_FILES:
        if path.stem.endswith("-dark"):
            assert path.with_name(path.name.replace("-dark", "")).is_file()


def test_every_provider_has_a_mark_or_a_monogram() -> None:
    rows = table()
    assert sorted(rows) == sorted(PROVIDER_IDS)
    for provider in PROVIDER_IDS:
        has_file = (LOGOS / f"{provider}.svg").is_file()
        assert has_file == bool(rows[provider].files), provider


def test_every_file_belongs_to_a_provider() -> None:
    for path in SVG_FILES:
        assert path.stem.removesuffix("-dark") in PROVIDER_IDS, path.name
    assert {p.name for p in LOGOS.iterdir()} == {p.name for p in SVG_FILES}


def test_the_page_and_the_files_agree() -> None:
    rows = table()
    named = sorted(name for row in rows.values() for name in row.files)
    assert named == sorted(p.name for p in SVG_FILES)
    for row in rows.values():
        if row.files:
            assert row.files[0] == f"{row.provider}.svg"
            assert row.files[1:] in ([], [f"{row.provider}-dark.svg"])
            assert row.slug
        else:
            assert (row.slug, row.hex) == ("", "")
    text = DOC.read_text("utf-8")
    with_mark = sum(bool(row.files) for row in rows.values())
    assert text.rstrip().endswith(f"\n{with_mark} of 93 providers have a mark.")
    assert re.search(r"`simple-icons@\d+\.\d+\.\d+`", text)
    assert "CC0-1.0" in text
    assert "trademarks of their owners" in text


def test_the_static_route_serves_the_marks() -> None:
    prefix = "/auth/_static/"
    assets = Assets(prefix, [])
    for path in SVG_FILES:
        name = f"logos/{path.name}"
        assert name in assets
        url = assets.url(name)
        assert re.fullmatch(
            rf"{re.escape(prefix)}logos/{re.escape(path.stem)}\.[0-9a-f]{{10}}\.svg", url
        )
        asset = assets.find(url.removeprefix(prefix))
        assert asset is not None
        assert asset.content_type == "image/svg+xml"
        assert asset.body == path.read_bytes()
