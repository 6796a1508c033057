"""The theme pack's templates in the app's own Jinja environment, so that an app page can
``{% extends "authui/layouts/app.html" %}`` and look like the auth pages.

The integrations add a ``PackTemplates`` loader to the app's environment (Quart: on the
auth blueprint; Starlette: ``setup_templates``) and name the request's ``PageRenderer``
before each render (``rendering_with``), from their template context processors. The
loader answers ``authui/<name>`` and ``authui-<pack>/<name>`` from that renderer's pack
chain, and nothing else; the app's own ``templates/authui/…`` files come first, as the
app's loader is searched before it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING

from jinja2 import BaseLoader, Environment, TemplateNotFound

if TYPE_CHECKING:
    from authui.pages import PageRenderer

_RENDERER: ContextVar[PageRenderer | None] = ContextVar("authui_app_renderer", default=None)


def rendering_with(renderer: PageRenderer) -> None:
    """Name the renderer whose pack the app's templates of this request extend."""
    _RENDERER.set(renderer)


class PackTemplates(BaseLoader):
    """Loads the current request's theme pack templates under the ``authui`` prefixes."""

    def get_source(
        self, environment: Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        renderer = _RENDERER.get()
        if renderer is None or not template.startswith("authui"):
            raise TemplateNotFound(template)
        source, filename, uptodate = renderer.pack_loader.get_source(environment, template)
        packs = renderer.pack_names

        def current() -> bool:
            now = _RENDERER.get()
            same = now is None or now.pack_names == packs
            return same and (uptodate is None or uptodate())

        return source, filename, current
