"""Every installed theme pack renders every page within the contract of the base pack.

For each pack and page: the status, the colour-scheme attribute, the pack's stylesheets
(linked and served as CSS), the CSP (no inline style attribute, no script or style block
without the nonce), labelled inputs, headings in order, and the same meaning for assistive
technology as the base pack (what a pack adds must be hidden from it). The htmx credentials
fragment stands alone in every pack. The shipped packs' palettes are checked for WCAG AA
contrast in both colour schemes.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Literal

import pytest

from authui import AuthConfig, Response, Theme
from authui.pages import PageRenderer
from authui.pages.packs import THEMES_DIR, installed_packs, pack_chain
from authui.providers.base import Provider, ProviderStyle
from authui.testing import AuthClient
from tests.conftest import CREDENTIALS, make_config

Scheme = Literal["auto", "light", "dark"]

PACKS = sorted(installed_packs())
STYLED_PACKS = [p for p in PACKS if p != "base"]
SHIPPED_PACKS = ("default", "terminal")
SCHEMES: tuple[Scheme, ...] = ("auto", "light", "dark")

PAGES: Mapping[str, int] = {
    "signin": 200,
    "signin-error": 200,
    "signout": 200,
    "error": 200,
    "error-verification": 403,
    "error-configuration": 500,
    "verify-request": 200,
    "new-user": 200,
    "new-user-invalid": 422,
}
PATHS: Mapping[str, str] = {
    "signin": "signin",
    "signin-error": "signin?error=CredentialsSignin",
    "signout": "signout",
    "error": "error",
    "error-verification": "error?error=Verification",
    "error-configuration": "error?error=Configuration",
    "verify-request": "verify-request",
}
PAGES_WITH_BUTTONS = ("signin", "signin-error", "signout", "error-verification", "new-user")

LOGO = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E"
GITHUB = Provider(
    id="github",
    name="GitHub",
    type="oauth",
    style=ProviderStyle(brand_color="#24292f", text="#ffffff", logo=LOGO),
)
PLAIN_OAUTH = Provider(id="acme", name="Acme", type="oidc")
EMAIL = Provider(id="email", name="Email", type="email")

FAILED_SIGN_IN = "Sign in failed. Check the details you provided are correct."


# ------------------------------------------------------------------ HTML reading --

VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


@dataclass(eq=False)
class Element:
    """One element: its attributes, whether assistive technology skips it, its text."""

    tag: str
    attrs: dict[str, str | None]
    hidden: bool
    parent: Element | None
    chunks: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The text assistive technology gets from it (aria-hidden parts left out)."""
        return " ".join("".join(self.chunks).split())

    def get(self, name: str) -> str | None:
        return self.attrs.get(name)

    def ancestors(self) -> Iterator[Element]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent


class Document(HTMLParser):
    """Every element of an HTML text, in document order."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self._open: list[Element] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        parent = self._open[-1] if self._open else None
        attributes = dict(attrs)
        hidden = (parent is not None and parent.hidden) or attributes.get("aria-hidden") == "true"
        element = Element(tag, attributes, hidden, parent)
        self.elements.append(element)
        if tag not in VOID:
            self._open.append(element)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID or all(e.tag != tag for e in self._open):
            return
        while self._open.pop().tag != tag:
            pass

    def handle_data(self, data: str) -> None:
        if self._open and not self._open[-1].hidden:
            for element in self._open:
                element.chunks.append(data)

    def all(self, tag: str) -> list[Element]:
        return [e for e in self.elements if e.tag == tag]

    def by_id(self, element_id: str) -> Element | None:
        return next((e for e in self.elements if e.get("id") == element_id), None)

    def with_role(self, role: str) -> list[Element]:
        return [e for e in self.elements if e.get("role") == role]


def outline(doc: Document) -> list[tuple[str | None, ...]]:
    """What assistive technology gets: landmarks, headings, labels, controls, roles, text.

    Secret values (the CSRF token) are left out: they differ on every render.
    """
    items: list[tuple[str | None, ...]] = []
    for e in doc.elements:
        if e.hidden:
            continue
        if e.tag in HEADINGS:
            items.append((e.tag, e.text))
        elif e.tag in ("main", "form"):
            items.append((e.tag, e.get("action"), e.get("method"), e.get("hx-post")))
        elif e.tag == "label":
            items.append(("label", e.get("for"), e.text))
        elif e.tag == "input":
            hidden_input = e.get("type") == "hidden"
            items.append(
                (
                    "input",
                    e.get("id"),
                    e.get("name"),
                    e.get("type"),
                    e.get("autocomplete"),
                    "required" if "required" in e.attrs else None,
                    e.get("aria-invalid"),
                    e.get("aria-describedby"),
                    None if hidden_input and e.get("name") == "csrfToken" else e.get("value"),
                )
            )
        elif e.tag in ("button", "a"):
            items.append((e.tag, e.get("type") or e.get("href"), e.get("id"), e.text))
        elif e.tag == "img":
            items.append(("img", e.get("src"), e.get("alt")))
        elif e.get("role") is not None:
            items.append(("role", e.get("role"), e.text))
    root = next(iter(doc.all("main") or doc.all("form")), None)
    items.append(("text", root.text if root else ""))
    return items


# --------------------------------------------------------------------- helpers --


def client_for(
    pack: str, scheme: Scheme = "auto", providers: list[Provider] | None = None, **theme: Any
) -> AuthClient:
    overrides: dict[str, object] = {"theme": Theme(pack=pack, color_scheme=scheme, **theme)}
    if providers is not None:
        overrides["providers"] = providers
    config: AuthConfig = make_config(**overrides)
    return AuthClient(config)


async def render(client: AuthClient, page: str) -> Response:
    """One page, reached the way a browser would."""
    if page == "new-user":
        signed_in = await client.sign_in_with_credentials(username="ada", password="correct horse")
        assert signed_in.status == 302
        return await client.get("new-user")
    if page == "new-user-invalid":
        token = await client.csrf_token()
        return await client.post("new-user", form={"csrfToken": token, "name": "   "})
    return await client.get(PATHS[page])


async def failed_htmx_sign_in(client: AuthClient) -> Response:
    token = await client.csrf_token()
    return await client.post(
        "callback/credentials",
        form={"csrfToken": token, "username": "bob", "password": "wrong horse"},
        headers={"HX-Request": "true"},
    )


def csp_nonce(response: Response) -> str:
    csp = response.header("content-security-policy")
    assert csp is not None, "pages are served with a CSP"
    script = re.search(r"script-src 'self' 'nonce-([^']+)'", csp)
    style = re.search(r"style-src 'self' 'nonce-([^']+)'", csp)
    assert script is not None
    assert style is not None
    assert script.group(1) == style.group(1)
    assert "'unsafe-inline'" not in csp
    return script.group(1)


def assert_csp_clean(html: str, doc: Document, nonce: str | None) -> None:
    """No inline style attribute; every script external, every <style> nonce'd."""
    assert 'style="' not in html
    assert all("style" not in e.attrs for e in doc.elements)
    assert all(not name.startswith("on") for e in doc.elements for name in e.attrs)
    for script in doc.all("script"):
        assert script.get("src"), "inline scripts are not allowed"
        assert nonce is None or script.get("nonce") in (None, nonce)
    for style in doc.all("style"):
        assert nonce is not None, "a fragment has no <style>"
        assert style.get("nonce") == nonce
    for img in doc.all("img"):
        assert (img.get("src") or "").startswith(("/", "https:", "data:"))


def assert_accessible(doc: Document) -> None:
    """Labelled inputs, described failures, named buttons, headings in order."""
    label_targets = [label.get("for") for label in doc.all("label")]
    for control in doc.all("input"):
        if control.get("type") == "hidden":
            continue
        control_id = control.get("id")
        assert control_id, f"an input without id: {control.attrs}"
        assert label_targets.count(control_id) == 1, f"input {control_id!r} has no <label for>"
        if control.get("aria-invalid") == "true":
            described = doc.by_id(control.get("aria-describedby") or "")
            assert described is not None, f"{control_id!r} is described by nothing"
            assert any(
                e.get("role") == "alert"
                for e in doc.elements
                if e is described or described in e.ancestors()
            )
    for target in label_targets:
        assert target
        assert doc.by_id(target) is not None, f"<label for={target!r}> labels nothing"
    for control in doc.all("button") + doc.all("a"):
        assert control.text, f"a {control.tag} without an accessible name"
    levels = [int(e.tag[1]) for e in doc.elements if e.tag in HEADINGS and not e.hidden]
    if levels:
        assert levels[0] == 1
        assert all(b <= a + 1 for a, b in itertools.pairwise(levels))


async def assert_stylesheets(client: AuthClient, doc: Document, pack: str) -> None:
    """The chain's stylesheets, parents first, each served as CSS through the client."""
    hrefs = [
        link.get("href") or ""
        for link in doc.all("link")
        if "stylesheet" in (link.get("rel") or "").split()
    ]
    expected = [name for p in reversed(pack_chain(pack)) for name in p.stylesheets]
    assert len(hrefs) == len(expected)
    prefix = f"{client.base_path}/_static/"
    for href, name in zip(hrefs, expected, strict=True):
        stem, _, suffix = name.rpartition(".")
        assert re.fullmatch(rf"{re.escape(prefix + stem)}\.[0-9a-f]{{10}}\.{suffix}", href)
        served = await client.get(href.removeprefix(client.base_path + "/"))
        assert served.status == 200
        assert (served.header("content-type") or "").startswith("text/css")
        assert served.body


# ----------------------------------------------------------------------- pages --


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("page", list(PAGES))
@pytest.mark.parametrize("pack", PACKS)
async def test_every_page_of_every_pack(pack: str, page: str, scheme: Scheme) -> None:
    client = client_for(pack, scheme)
    response = await render(client, page)
    assert response.status == PAGES[page], response.text

    html = response.text
    doc = Document(html)
    root = doc.all("html")[0]
    assert root.get("data-color-scheme") == scheme
    meta = next(m for m in doc.all("meta") if m.get("name") == "color-scheme")
    assert meta.get("content") == ("light dark" if scheme == "auto" else scheme)
    assert (response.header("content-type") or "").startswith("text/html")
    assert_csp_clean(html, doc, csp_nonce(response))
    assert_accessible(doc)
    assert len(doc.all("h1")) == 1
    assert len(doc.all("main")) == 1
    await assert_stylesheets(client, doc, pack)


@pytest.mark.parametrize("page", list(PAGES))
@pytest.mark.parametrize("pack", STYLED_PACKS)
async def test_a_pack_means_what_base_means(pack: str, page: str) -> None:
    """What a pack adds to base's markup is decoration hidden from assistive technology."""
    themed = await render(client_for(pack), page)
    plain = await render(client_for("base"), page)
    assert outline(Document(themed.text)) == outline(Document(plain.text))


@pytest.mark.parametrize("pack", PACKS)
async def test_sign_in_page_with_every_kind_of_provider(pack: str) -> None:
    client = client_for(pack, providers=[CREDENTIALS, GITHUB, PLAIN_OAUTH, EMAIL])
    response = await client.get("signin")
    assert response.status == 200
    doc = Document(response.text)
    nonce = csp_nonce(response)
    assert_csp_clean(response.text, doc, nonce)
    assert_accessible(doc)
    forms = doc.all("form")
    # Providers first, then the email form, then the credentials form.
    assert [f.get("class") for f in forms] == [
        "authui-form authui-form-oauth",
        "authui-form authui-form-oauth",
        "authui-form authui-form-email",
        "authui-form authui-form-credentials",
    ]
    # The brand colours travel as custom properties in the nonce'd <style>.
    styles = " ".join(s.text for s in doc.all("style"))
    assert ".authui-provider-github { --authui-provider-brand: #24292f;" in styles
    assert "--authui-provider-text: #ffffff;" in styles
    assert "authui-provider-acme" not in styles
    github = next(
        b for b in doc.all("button") if "authui-provider-github" in (b.get("class") or "")
    )
    assert github.text == "Continue with GitHub"
    logo = next(i for i in doc.all("img") if "authui-provider-logo" in (i.get("class") or ""))
    assert logo.get("alt") == ""
    assert logo.get("src") == LOGO
    plain = await client_for("base", providers=[CREDENTIALS, GITHUB, PLAIN_OAUTH, EMAIL]).get(
        "signin"
    )
    assert outline(doc) == outline(Document(plain.text))


@pytest.mark.parametrize("pack", PACKS)
async def test_theme_colours_and_logo(pack: str) -> None:
    client = client_for(pack, brand_color="#0b7285", button_text="#ffffff", logo="/logo.svg")
    response = await client.get("signout")
    doc = Document(response.text)
    nonce = csp_nonce(response)
    assert_csp_clean(response.text, doc, nonce)
    links = [link.get("href") or "" for link in doc.all("link")]
    assert links[-1].startswith("/auth/_static/theme.")
    served = (await client.get(links[-1].removeprefix("/auth/"))).text
    assert "--authui-brand: #0b7285;" in served
    assert "--authui-brand-text: #ffffff;" in served
    logo = next(i for i in doc.all("img") if i.get("class") == "authui-logo")
    assert logo.get("src") == "/logo.svg"
    assert logo.get("alt") == ""


# ----------------------------------------------------------------- htmx fragment --


@pytest.mark.parametrize("pack", PACKS)
async def test_failed_htmx_sign_in_swaps_a_standalone_form(pack: str) -> None:
    client = client_for(pack)
    response = await failed_htmx_sign_in(client)
    assert response.status == 200
    assert "HX-Request" in (response.header("vary") or "")
    html = response.text.strip()
    assert html.startswith("<form")
    assert html.endswith("</form>")
    assert "<html" not in html
    assert "<body" not in html
    assert "wrong horse" not in html

    doc = Document(html)
    assert_csp_clean(html, doc, None)
    assert not doc.all("style")
    assert not doc.all("script")
    assert_accessible(doc)
    (form,) = doc.all("form")
    assert form.get("hx-target") == "this"
    assert form.get("hx-swap") == "outerHTML"
    assert form.get("action") == client.url("callback/credentials")
    (alert,) = doc.with_role("alert")
    assert alert.text == FAILED_SIGN_IN
    inputs = {i.get("name"): i for i in doc.all("input")}
    assert inputs["csrfToken"].get("type") == "hidden"
    assert inputs["csrfToken"].get("value")
    assert inputs["username"].get("value") == "bob"
    assert inputs["password"].get("value") is None
    for name in ("username", "password"):
        assert inputs[name].get("aria-invalid") == "true"
        described = doc.by_id(inputs[name].get("aria-describedby") or "")
        assert described is not None
        assert alert is described or described in alert.ancestors()
    buttons = doc.all("button")
    assert [b.text for b in buttons] == ["Sign in"]
    assert buttons[0].get("type") == "submit"

    plain = await failed_htmx_sign_in(client_for("base"))
    assert outline(doc) == outline(Document(plain.text))


# ------------------------------------------------------------- pack resolution --


def template_names() -> list[str]:
    base = THEMES_DIR / "base"
    return sorted(p.relative_to(base).as_posix() for p in base.rglob("*.html"))


@pytest.mark.parametrize("pack", PACKS)
def test_templates_fall_back_along_the_chain(pack: str) -> None:
    renderer = PageRenderer(Theme(pack=pack), "/auth")
    chain = pack_chain(pack)
    assert chain[-1].name == "base"
    for name in template_names():
        owner = next(p for p in chain if (p.directory / name).is_file())
        template = renderer.environment.get_template(f"authui/{name}")
        assert template.filename is not None
        assert Path(template.filename).resolve() == (owner.directory / name).resolve()


def test_packs_are_installed_with_labels() -> None:
    packs = installed_packs()
    assert {"base", "default", "terminal"} <= set(packs)
    assert packs["default"].label == "Default"
    assert packs["terminal"].label == "Terminal"
    assert packs["default"].stylesheets == ("default.css",)
    assert packs["terminal"].stylesheets == ("terminal.css",)
    assert packs["default"].parent == packs["terminal"].parent == "base"
    assert Theme().pack == "default"


def test_default_pack_is_only_a_stylesheet() -> None:
    directory = installed_packs()["default"].directory
    assert not list(directory.rglob("*.html"))


def test_terminal_overrides_only_the_windows_and_the_buttons() -> None:
    directory = installed_packs()["terminal"].directory
    overridden = sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*.html"))
    assert overridden == ["elements/button.html", "layouts/app.html", "layouts/entrance.html"]


@pytest.mark.parametrize("page", list(PAGES))
async def test_terminal_pages_use_its_window_and_buttons(page: str) -> None:
    response = await render(client_for("terminal"), page)
    doc = Document(response.text)
    (window,) = [e for e in doc.elements if e.get("data-authui-layout") == "terminal"]
    assert "authui-card" in (window.get("class") or "")
    (titlebar,) = [e for e in doc.elements if e.get("class") == "authui-term-titlebar"]
    assert titlebar.get("aria-hidden") == "true"
    assert "".join(titlebar.chunks) == ""  # hidden: no text reaches assistive technology
    title = re.search(r'<span class="authui-term-title">([^<]*)</span>', response.text)
    assert title is not None
    assert title.group(1) == doc.all("title")[0].text
    # The rest is base's markup.
    assert doc.all("h1")[0].get("class") == "authui-heading"
    buttons = doc.all("button") + [
        a for a in doc.all("a") if "authui-button" in (a.get("class") or "")
    ]
    if page in PAGES_WITH_BUTTONS:
        assert buttons
    for button in buttons:
        brackets = [e for e in doc.elements if button in e.ancestors() and e.hidden]
        assert [b.get("class") for b in brackets] == ["authui-term-bracket"] * 2
        assert "[" not in button.text
        assert "]" not in button.text


async def test_terminal_fragment_uses_its_buttons() -> None:
    response = await failed_htmx_sign_in(client_for("terminal"))
    assert 'class="authui-term-bracket" aria-hidden="true">[</span>' in response.text
    assert "data-authui-layout" not in response.text


async def test_terminal_window_knows_an_app_brand() -> None:
    branded = await client_for("terminal", brand_color="#0b7285").get("signin")
    plain = await client_for("terminal").get("signin")
    assert "authui-term-branded" in branded.text
    assert "authui-term-branded" not in plain.text


async def test_unknown_pack_is_a_configuration_error(caplog: pytest.LogCaptureFixture) -> None:
    client = client_for("nope")
    response = await client.get("signin")
    assert response.status == 500
    doc = Document(response.text)
    assert doc.all("h1")[0].text == "Server error"
    assert_csp_clean(response.text, doc, csp_nonce(response))
    assert "nope" in caplog.text
    for name in installed_packs():
        assert repr(name) in caplog.text
    api = await client.get("session")
    assert api.status == 500


# ---------------------------------------------------------------- stylesheets --

COMMENT = re.compile(r"/\*.*?\*/", re.S)
BLOCK = re.compile(r"([^{}]+)\{([^{}]*)\}")
HEX_PROPERTY = re.compile(r"(--[\w-]+):\s*(#[0-9a-fA-F]{6})\s*;")
AUTO_BLOCK = re.compile(
    r"@media\s*\(prefers-color-scheme:\s*(light|dark)\)\s*\{\s*"
    r'html\[data-color-scheme="auto"\]\s*\{([^{}]*)\}'
)

# (foreground, background, minimum ratio): 4.5 for text, 3 for boundaries and focus.
CONTRAST_PAIRS: Mapping[str, list[tuple[str, str, float]]] = {
    "default": [
        ("--dt-text", "--dt-card", 4.5),
        ("--dt-text", "--dt-page", 4.5),
        ("--dt-muted", "--dt-card", 4.5),
        ("--dt-muted", "--dt-page", 4.5),
        ("--dt-text", "--dt-input-bg", 4.5),
        ("--dt-placeholder", "--dt-input-bg", 4.5),
        ("--dt-input-border", "--dt-input-bg", 3),
        ("--dt-input-border", "--dt-card", 3),
        ("--dt-link", "--dt-card", 4.5),
        ("--dt-text", "--dt-neutral-bg", 4.5),
        ("--dt-text", "--dt-neutral-hover", 4.5),
        ("--dt-input-border", "--dt-neutral-hover", 3),
        ("--dt-danger-text", "--dt-danger-bg", 4.5),
        ("--dt-danger-on", "--dt-danger", 4.5),
        ("--dt-danger", "--dt-card", 3),
        ("--dt-danger", "--dt-input-bg", 3),
        ("--dt-info-text", "--dt-info-bg", 4.5),
    ],
    "terminal": [
        ("--tm-text", "--tm-window", 4.5),
        ("--tm-text", "--tm-stripe", 4.5),
        ("--tm-text", "--tm-input-bg", 4.5),
        ("--tm-dim", "--tm-window", 4.5),
        ("--tm-dim", "--tm-stripe", 4.5),
        ("--tm-dim", "--tm-input-bg", 4.5),
        ("--tm-link", "--tm-window", 4.5),
        ("--tm-link", "--tm-stripe", 4.5),
        ("--tm-on-accent", "--tm-accent", 4.5),
        ("--tm-accent", "--tm-window", 3),
        ("--tm-accent", "--tm-stripe", 3),
        ("--tm-border", "--tm-window", 3),
        ("--tm-border", "--tm-stripe", 3),
        ("--tm-border", "--tm-input-bg", 3),
        ("--tm-danger", "--tm-danger-bg", 4.5),
        ("--tm-danger", "--tm-input-bg", 3),
        ("--tm-danger", "--tm-window", 3),
        ("--tm-focus", "--tm-window", 3),
        ("--tm-focus", "--tm-stripe", 3),
        ("--tm-focus", "--tm-screen", 3),
    ],
}


def stylesheet(pack: str) -> str:
    info = installed_packs()[pack]
    (name,) = info.stylesheets
    return COMMENT.sub("", (info.directory / "static" / name).read_text("utf-8"))


def palettes(css: str) -> dict[str, list[dict[str, str]]]:
    """Blocks that set ``color-scheme``: their hex custom properties, by scheme."""
    found: dict[str, list[dict[str, str]]] = {"light": [], "dark": []}
    for selector, body in BLOCK.findall(css):
        scheme = re.search(r"(?<![\w-])color-scheme:\s*(light|dark)\s*;", body)
        if scheme and ("data-color-scheme" in selector or ":root" in selector):
            found[scheme.group(1)].append(dict(HEX_PROPERTY.findall(body)))
    return found


def luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_contrast_helper_matches_known_ratios() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21)
    assert contrast("#ffffff", "#777777") == pytest.approx(4.48, abs=0.01)


@pytest.mark.parametrize("pack", SHIPPED_PACKS)
def test_palettes_follow_the_colour_scheme(pack: str) -> None:
    css = stylesheet(pack)
    found = palettes(css)
    for scheme in ("light", "dark"):
        assert found[scheme], f"no {scheme} palette"
        first = found[scheme][0]
        assert all(p == first for p in found[scheme]), f"{scheme} palettes differ"
        assert re.search(rf'html\[data-color-scheme="{scheme}"\][^{{}}]*\{{', css)
    (auto,) = AUTO_BLOCK.findall(css)
    scheme, body = auto
    assert dict(HEX_PROPERTY.findall(body)) == found[scheme][0]
    assert f"color-scheme: {scheme};" in body


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("pack", SHIPPED_PACKS)
def test_palettes_meet_wcag_aa(pack: str, scheme: str) -> None:
    palette = palettes(stylesheet(pack))[scheme][0]
    failures = [
        f"{fg} {palette[fg]} on {bg} {palette[bg]}: {contrast(palette[fg], palette[bg]):.2f}"
        for fg, bg, minimum in CONTRAST_PAIRS[pack]
        if contrast(palette[fg], palette[bg]) < minimum
    ]
    assert not failures


def test_default_brand_fallbacks_meet_wcag_aa() -> None:
    css = stylesheet("default")
    brands = set(re.findall(r"var\(--authui-brand, (#[0-9a-fA-F]{6})\)", css))
    texts = set(re.findall(r"var\(--authui-brand-text, (#[0-9a-fA-F]{6})\)", css))
    assert brands == {"#2563eb", "#1d4ed8"}  # buttons and focus; links
    assert texts == {"#ffffff"}
    light, dark = palettes(css)["light"][0], palettes(css)["dark"][0]
    for brand in brands:  # links and focus rings of the light scheme
        assert contrast(brand, light["--dt-card"]) >= 4.5
        assert contrast(brand, light["--dt-page"]) >= 3
    (button,) = set(re.findall(r"#[0-9a-fA-F]{6}", rule(css, ".authui-button-primary"))) - texts
    assert contrast("#ffffff", button) >= 4.5
    for palette in (light, dark):  # the button's edge
        assert contrast(button, palette["--dt-card"]) >= 3


def rule(css: str, selector: str) -> str:
    bodies = [body for sel, body in BLOCK.findall(css) if sel.strip() == selector]
    assert bodies, f"no rule for {selector}"
    return " ".join(bodies)


@pytest.mark.parametrize("pack", SHIPPED_PACKS)
def test_stylesheets_honour_the_contract(pack: str) -> None:
    css = stylesheet(pack)
    for hook in (
        "--authui-brand",
        "--authui-brand-text",
        "--authui-provider-brand",
        "--authui-provider-text",
        "--authui-divider-label",
        ":focus-visible",
        "prefers-reduced-motion",
        "forced-colors",
        "max-width",
    ):
        assert hook in css, hook
    for selector in (".authui-button", ".authui-input"):
        assert re.search(r"min-height:\s*(2\.75rem|44px)", rule(css, selector)), selector
    assert "style=" not in css
    assert "@import" not in css
    assert "url(" not in css  # nothing fetched: the CSP allows only self, data: and https:


def test_terminal_cursor_blinks_only_with_motion() -> None:
    css = stylesheet("terminal")
    assert "animation: authui-term-blink" in rule(css, ".authui-heading::after")
    reduced = css[css.index("@media (prefers-reduced-motion: reduce)") :]
    assert re.match(
        r"@media \(prefers-reduced-motion: reduce\) \{\s*\.authui-heading::after \{\s*"
        r"animation: none;",
        reduced,
    )
