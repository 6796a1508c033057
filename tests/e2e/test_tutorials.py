"""The tutorials' apps, as a reader builds them: the code blocks of
``docs/tutorials/quart.md`` and ``docs/tutorials/fastapi.md`` written to files as the text
says, served by the server it names, and used in Chromium. The home page must look like
the auth pages beside it (the same background, type, card and buttons, in light and dark),
be axe-clean, and sign a user in and out; its pictures go to ``docs/assets/tutorials/``.
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from playwright.async_api import expect

from tests.e2e.conftest import ROOT, SCHEMES, guarded_context
from tests.e2e.test_accessibility import axe_source, failures, run_axe
from tests.e2e.test_gallery import save_png
from tests.peers.servers import Server, asgi_servers

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page

__all__ = ["axe_source"]  # the fixture, used by name

PICTURES = ROOT / "docs" / "assets" / "tutorials"
SIZE = {"width": 900, "height": 700}


@dataclass(frozen=True)
class Tutorial:
    """One tutorial: its page, the file its app is saved as, and its server."""

    name: str
    module: str
    server: Server

    @property
    def text(self) -> str:
        return (ROOT / "docs" / "tutorials" / f"{self.name}.md").read_text("utf-8")

    def code_after(self, sentence: str, language: str) -> str:
        """The code block that follows ``sentence`` in the tutorial."""
        after = self.text.split(sentence, 1)[1]
        found = re.search(rf"```{language}\n(.*?)```", after, re.DOTALL)
        assert found is not None, f"no {language} block after {sentence!r} in {self.name}.md"
        return found.group(1)


TUTORIALS = {
    "quart": Tutorial("quart", "app", "hypercorn"),
    "fastapi": Tutorial("fastapi", "main", "uvicorn"),
}

LOOK = """(selectors) => Object.fromEntries(Object.entries(selectors).map(([name, selector]) => {
  const element = document.querySelector(selector);
  if (!element) return [name, null];
  const style = getComputedStyle(element);
  return [name, {
    background: style.backgroundColor + " " + style.backgroundImage,
    colour: style.color,
    font: style.fontFamily + " " + style.fontSize,
    border: style.borderTopColor + " " + style.borderRadius,
  }];
}))"""
"""The computed look of a few elements, by name."""


@pytest.fixture(scope="module", params=sorted(TUTORIALS))
def tutorial_site(request: pytest.FixtureRequest) -> Iterator[tuple[Tutorial, str]]:
    """The tutorial's app saved as it says (``<module>.py`` and ``templates/home.html``)
    and served with the environment it sets up."""
    tutorial = TUTORIALS[request.param]
    with tempfile.TemporaryDirectory(prefix=f"authui-tutorial-{tutorial.name}-") as folder:
        here = Path(folder)
        source = tutorial.code_after(f"Save this as `{tutorial.module}.py`:", "python")
        (here / f"{tutorial.module}.py").write_text(source)
        (here / "templates").mkdir()
        home = tutorial.code_after("Now the template, `templates/home.html`:", "jinja")
        (here / "templates" / "home.html").write_text(home)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("AUTH_")},
            "AUTH_SECRET": secrets.token_urlsafe(32),
            "AUTH_TRUSTED_HOSTS": "localhost,127.0.0.1",
        }
        app = f"{tutorial.module}:app"
        with asgi_servers(app, 1, env, server=tutorial.server, cwd=here) as (url,):
            yield tutorial, url


async def look(page: Page, path: str, **selectors: str) -> dict[str, dict[str, str] | None]:
    await page.goto(path)
    found: dict[str, dict[str, str] | None] = await page.evaluate(LOOK, selectors)
    return found


async def picture(page: Page, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shot = await page.screenshot(type="png", animations="disabled", caret="hide")
    await asyncio.to_thread(save_png, target, shot)


@pytest.mark.parametrize("scheme", SCHEMES)
async def test_the_tutorial_app_looks_like_its_auth_pages(
    browser: Browser,
    tutorial_site: tuple[Tutorial, str],
    offsite_requests: list[str],
    axe_source: str,
    scheme: str,
) -> None:
    tutorial, url = tutorial_site
    context = await guarded_context(
        browser, url, offsite_requests, viewport=SIZE, color_scheme=scheme, device_scale_factor=1
    )
    try:
        page = await context.new_page()
        app = await look(
            page,
            "/",
            body="body",
            card=".authui-app-card",
            button="header .authui-button",
            heading="h1",
        )
        problems = failures(f"{tutorial.name} / ({scheme})", await run_axe(page, axe_source))
        await picture(page, PICTURES / f"{tutorial.name}-home-{scheme}.png")
        auth = await look(
            page,
            "/auth/signin",
            body="body",
            card=".authui-card",
            button=".authui-form-credentials .authui-button-primary",
            heading="h1",
        )
        assert all(app.values()), app
        assert app == auth, "the app's page and the sign-in page differ"
        assert not problems, "\n".join(problems)

        await page.goto("/")
        await page.get_by_role("banner").get_by_role("link", name="Sign in").click()
        await page.get_by_label("Username").fill("ada")
        await page.get_by_label("Password").fill("analytical")
        await page.get_by_role("button", name="Sign in", exact=True).click()
        await page.wait_for_url(f"{url}/")
        await expect(page.get_by_text("Signed in as Ada Lovelace.")).to_be_visible()
        await picture(page, PICTURES / f"{tutorial.name}-signed-in-{scheme}.png")
        await page.get_by_role("banner").get_by_role("button", name="Sign out").click()
        await expect(page.get_by_text("You are not signed in.")).to_be_visible()
    finally:
        await context.close()
    assert not offsite_requests
