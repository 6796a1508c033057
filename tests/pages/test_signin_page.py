"""The sign-in page as a user meets it: providers first (with their marks), one email field
for the sign-in link and passkeys, the credentials form last; natural button texts; the
"Last used" mark kept in a cookie; a grid of marks for many providers."""

from __future__ import annotations

from typing import Any

import pytest

from authui import Experimental, Pages, Theme
from authui.adapters.memory import MemoryAdapter
from authui.providers.base import Provider, ProviderStyle
from authui.providers.console_email import ConsoleEmail
from authui.providers.credentials import Credentials
from authui.providers.registry import built_in
from authui.providers.webauthn import Passkey
from authui.testing import AuthClient
from tests.conftest import CREDENTIALS, authorize, make_config
from tests.pages.test_theme_packs import Document, Element, assert_accessible

GITHUB = built_in("github", client_id="id", client_secret="secret")
AZURE = built_in("azure-ad", client_id="id", client_secret="secret")
DISCORD = built_in("discord", client_id="id", client_secret="secret")
EVERY_KIND = [GITHUB, AZURE, ConsoleEmail(), Passkey(), CREDENTIALS]


def client(providers: list[Provider], **config: Any) -> AuthClient:
    return AuthClient(
        make_config(
            providers=providers,
            adapter=MemoryAdapter(),
            experimental=Experimental(enable_webauthn=True),
            **config,
        )
    )


async def page(auth: AuthClient) -> Document:
    response = await auth.get("signin")
    assert response.status == 200, response.text[:300]
    return Document(response.text)


def classes(element: Element) -> list[str]:
    return (element.get("class") or "").split()


def buttons(doc: Document) -> list[Element]:
    return doc.all("button")


async def test_groups_come_in_order_with_a_divider_between_groups_only() -> None:
    doc = await page(client(EVERY_KIND))

    def kind(element: Element) -> str:
        if element.tag == "hr":
            return "divider"
        return next(c for c in classes(element) if c.startswith("authui-form-"))

    assert [kind(e) for e in doc.elements if e.tag in ("form", "hr")] == [
        "authui-form-oauth",
        "authui-form-oauth",
        "divider",
        "authui-form-email",
        "divider",
        "authui-form-credentials",
    ]
    assert_accessible(doc)


async def test_one_email_field_serves_the_link_and_passkeys() -> None:
    doc = await page(client(EVERY_KIND))

    fields = [i for i in doc.all("input") if i.get("name") == "email"]
    assert len(fields) == 1
    (field,) = fields
    assert field.get("type") == "email"
    assert field.get("autocomplete") == "username webauthn"  # passkeys in its autofill
    labels = [label for label in doc.all("label") if label.get("for") == field.get("id")]
    assert [label.text for label in labels] == ["Email"]
    assert sum(label.text == "Email" for label in doc.all("label")) == 1
    form = next(f for f in doc.all("form") if "authui-form-email" in classes(f))
    assert form.get("action") == "http://localhost:3000/auth/signin/email"
    assert form.get("data-authui-passkey") == "passkey"
    assert form.get("data-authui-passkey-submit") == "false"  # submitting sends the link
    by_action = {
        b.get("data-authui-passkey-action"): b for b in buttons(doc) if form in b.ancestors()
    }
    assert by_action["authenticate"].text == "Sign in with a passkey"
    assert by_action["authenticate"].get("type") == "button"
    assert by_action["sign-up"].text == "New here? Sign up with a passkey"
    # Shown by webauthn.js once passkeys can work; without JavaScript the link still does.
    assert "hidden" in by_action["authenticate"].attrs
    assert "hidden" in by_action["sign-up"].attrs
    assert "hidden" not in by_action[None].attrs
    assert by_action[None].text == "Email me a sign-in link"
    assert any("/webauthn." in (s.get("src") or "") for s in doc.all("script"))


async def test_a_passkey_alone_owns_its_form() -> None:
    doc = await page(client([Passkey(), CREDENTIALS]))

    form = next(f for f in doc.all("form") if "authui-form-email" in classes(f))
    assert form.get("data-authui-passkey-submit") == "true"
    (sign_in,) = [b for b in buttons(doc) if b.get("data-authui-passkey-action") == "authenticate"]
    assert sign_in.get("type") == "button"  # Enter in the field continues with the address
    assert "hidden" in sign_in.attrs  # until webauthn.js finds that passkeys can work
    field = next(i for i in doc.all("input") if i.get("name") == "email")
    assert "required" not in field.attrs  # a discoverable passkey needs no address


@pytest.mark.parametrize(
    ("provider", "text"),
    [
        pytest.param(GITHUB, "Continue with GitHub", id="oauth"),
        pytest.param(CREDENTIALS, "Sign in", id="credentials"),
        pytest.param(
            Credentials(name="Employee number", credentials={"n": {}}, authorize=authorize),
            "Sign in with Employee number",
            id="named credentials",
        ),
        pytest.param(ConsoleEmail(), "Email me a sign-in link", id="email"),
        pytest.param(
            built_in(
                "github",
                client_id="id",
                client_secret="secret",
                style=ProviderStyle(label="Use your GitHub account"),
            ),
            "Use your GitHub account",
            id="own label",
        ),
    ],
)
async def test_button_texts_read_naturally(provider: Provider, text: str) -> None:
    doc = await page(client([provider]))

    assert [b.text for b in buttons(doc) if "hidden" not in b.attrs] == [text]


async def test_marks_are_served_here_and_a_provider_without_one_gets_a_monogram() -> None:
    auth = client([GITHUB, AZURE])
    response = await auth.get("signin")
    doc = Document(response.text)

    github, azure = buttons(doc)
    (img,) = [i for i in doc.all("img") if github in i.ancestors()]
    assert img.get("alt") == ""
    source = img.get("src") or ""
    assert source.startswith("/auth/_static/logos/github.")
    assert source.endswith(".svg")
    (dark,) = [s for s in doc.all("source") if github in s.ancestors()]
    assert dark.get("media") == "(prefers-color-scheme: dark)"
    for url in (source, dark.get("srcset") or ""):
        served = await auth.get(url.removeprefix("/auth/"))
        assert served.status == 200
        assert served.header("content-type") == "image/svg+xml"
        assert served.body.startswith(b"<svg")
    assert not [i for i in doc.all("img") if azure in i.ancestors()]
    (monogram,) = [e for e in doc.elements if "authui-provider-monogram" in classes(e)]
    assert monogram.hidden  # aria-hidden: the button's text names it
    assert '<span class="authui-provider-monogram" aria-hidden="true">A</span>' in response.text
    assert azure.text == "Continue with Azure Active Directory"


@pytest.mark.parametrize(("scheme", "file"), [("light", "github."), ("dark", "github-dark.")])
async def test_a_forced_colour_scheme_picks_its_mark(scheme: str, file: str) -> None:
    doc = await page(client([GITHUB], theme=Theme(color_scheme=scheme)))  # type: ignore[arg-type]

    (img,) = doc.all("img")
    assert (img.get("src") or "").startswith(f"/auth/_static/logos/{file}")
    assert not doc.all("source")


async def test_the_provider_signed_in_with_is_marked_last_used() -> None:
    auth = client([GITHUB, ConsoleEmail(), CREDENTIALS])
    assert not [e for e in (await page(auth)).elements if "authui-last-used" in classes(e)]

    signed_in = await auth.sign_in_with_credentials(username="ada", password="correct horse")
    assert signed_in.status == 302
    assert auth.cookies["authui.last-used"] == "credentials"
    (cookie,) = [c for c in signed_in.header_all("set-cookie") if "authui.last-used" in c]
    assert (
        cookie == "authui.last-used=credentials; Max-Age=31536000; Path=/; HttpOnly; SameSite=Lax"
    )

    doc = await page(auth)
    (badge,) = [e for e in doc.elements if "authui-last-used" in classes(e)]
    assert badge.text == "Last used"
    form = next(f for f in doc.all("form") if "authui-form-credentials" in classes(f))
    assert form in badge.ancestors()


async def test_a_last_used_oauth_button_says_so_in_its_name() -> None:
    auth = client([GITHUB, DISCORD])
    auth.cookies["authui.last-used"] = "discord"
    github, discord = buttons(await page(auth))

    assert discord.text == "Continue with Discord Last used"
    assert discord.get("data-last-used") == "true"
    assert github.text == "Continue with GitHub"


@pytest.mark.parametrize("value", ["nobody", "<script>", ""])
async def test_a_foreign_last_used_value_marks_nothing(value: str) -> None:
    auth = client([GITHUB, CREDENTIALS])
    auth.cookies["authui.last-used"] = value
    response = await auth.get("signin")

    assert response.status == 200
    assert "authui-last-used" not in response.text
    assert "<script>" not in response.text.replace('<script src="', "")


@pytest.mark.parametrize(
    "config",
    [
        pytest.param({"theme": Theme(remember_last_used=False)}, id="turned off"),
        pytest.param({"pages": Pages(sign_in="/login")}, id="own sign-in page"),
    ],
)
async def test_no_last_used_cookie_when_the_page_does_not_show_it(config: dict[str, Any]) -> None:
    auth = client([CREDENTIALS], **config)
    signed_in = await auth.sign_in_with_credentials(username="ada", password="correct horse")

    assert signed_in.status == 302
    names = [c.split("=", 1)[0] for c in signed_in.header_all("set-cookie")]
    assert names == ["authjs.session-token"]


async def test_ten_providers_and_more_make_a_grid_of_named_marks() -> None:
    ids = [
        "github",
        "gitlab",
        "google",
        "discord",
        "spotify",
        "twitch",
        "zoom",
        "slack",
        "reddit",
        "notion",
    ]
    many = [built_in(i, client_id="id", client_secret="secret") for i in ids]

    doc = await page(client(many))
    (grid,) = [e for e in doc.elements if "authui-provider-grid" in classes(e)]
    grid_buttons = [b for b in buttons(doc) if grid in b.ancestors()]
    assert len(grid_buttons) == 10
    for button in grid_buttons:
        assert button.text.startswith("Continue with ")  # the accessible name
        assert button.get("title") == button.text
        (label,) = [
            e
            for e in doc.elements
            if button in e.ancestors() and e.tag == "span" and "authui-provider-label" in classes(e)
        ]
        assert "authui-visually-hidden" in classes(label)

    fewer = await page(client(many[:9]))
    assert not [e for e in fewer.elements if "authui-provider-grid" in classes(e)]
    assert not [e for e in fewer.elements if "authui-visually-hidden" in classes(e)]
