"""The state of one request while an action runs: parsed input, CSRF, callback URL, cookies."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from authui.cookies import Cookie, CookieTable, SessionChunks
from authui.csrf import CsrfState
from authui.http import Request
from authui.options import Options
from authui.providers.base import Provider


@dataclass(slots=True)
class Context:
    """Everything an action needs about the request it serves.

    Attributes:
        request: The request as the integration gave it.
        options: The resolved configuration.
        action: The action name from the path.
        provider_id: The provider id from the path, if any.
        url: The request URL, with its origin replaced by ``AUTH_URL``'s when that is set.
        origin: ``scheme://host[:port]`` of ``url``.
        body: The parsed body (form or JSON object).
        cookies: The table of cookie names and attributes for this request's mode.
        csrf: The CSRF outcome.
        callback_url: Where to send the user afterwards, already through ``redirect``.
        set_cookies: Cookies to send with the response; dropped if the action fails.
        spent_cookies: Deletions of single-use cookies this request consumed; sent even
            when the action fails, so that nothing can be replayed.
        raw: The caller takes the ``InternalResponse`` (``config.raw``, or a call on the
            app's behalf): a failed action's ``AuthError`` is raised to it.
    """

    request: Request
    options: Options
    action: str
    provider_id: str | None
    url: str
    origin: str
    body: dict[str, Any]
    cookies: CookieTable
    csrf: CsrfState
    callback_url: str = ""
    set_cookies: list[Cookie] = field(default_factory=list)
    spent_cookies: list[Cookie] = field(default_factory=list)
    raw: bool = False

    @property
    def method(self) -> str:
        return self.request.method

    @property
    def query(self) -> dict[str, str]:
        return self.request.query

    @property
    def base_url(self) -> str:
        """The origin plus base path: ``https://app.example.com/auth``."""
        return self.origin + self.options.base_path

    def action_url(self, action: str, provider_id: str | None = None) -> str:
        """Absolute URL of an action (and provider)."""
        suffix = f"/{provider_id}" if provider_id else ""
        return f"{self.base_url}/{action}{suffix}"

    @property
    def provider(self) -> Provider:
        """The provider named in the path (raises ``InvalidProvider`` when unknown)."""
        return self.options.provider(self.provider_id)

    def session_chunks(self) -> SessionChunks:
        """The session cookie of this request, possibly in chunks."""
        return SessionChunks.from_request(self.cookies.session_token, self.request.cookies)
