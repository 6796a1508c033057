"""A cookie-keeping client that talks to ``authui.Auth`` directly, without a server."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from authui.config import AuthConfig
from authui.core import Auth
from authui.http import Request, Response


def _set_cookie_pair(header: str) -> tuple[str, str, bool]:
    """(name, raw value, deleted) of a ``Set-Cookie`` header."""
    pair, *attributes = header.split(";")
    name, _, value = pair.partition("=")
    deleted = any(a.strip().lower() == "max-age=0" for a in attributes)
    return name.strip(), value.strip(), deleted


@dataclass
class AuthClient:
    """Sends requests to ``Auth()`` as a browser would: it keeps the cookies it is given.

    Args:
        config: The configuration under test.
        origin: The site's origin, e.g. ``"http://localhost:3000"``.
        base_path: Where the auth routes live.
        client_address: The IP address the requests come from, as a server would see it.
    """

    config: AuthConfig
    origin: str = "http://localhost:3000"
    base_path: str = "/auth"
    client_address: str | None = "127.0.0.1"
    cookies: dict[str, str] = field(default_factory=dict)

    def url(self, path: str) -> str:
        """Absolute URL of ``path`` under the base path (``"session"`` → …/auth/session)."""
        return f"{self.origin}{self.base_path}/{path.lstrip('/')}"

    async def request(
        self,
        method: str,
        path: str,
        *,
        form: Mapping[str, str] | None = None,
        json_body: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        """Send a request and keep the cookies of the response."""
        all_headers = dict(headers or {})
        body = b""
        if form is not None:
            body = urlencode(form).encode()
            all_headers.setdefault("content-type", "application/x-www-form-urlencoded")
        elif json_body is not None:
            body = json.dumps(json_body).encode()
            all_headers.setdefault("content-type", "application/json")
        if self.cookies:
            all_headers["cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        request = Request.build(
            method, self.url(path), headers=all_headers, body=body, client=self.client_address
        )
        response = await Auth(request, self.config)
        if not isinstance(response, Response):
            raise TypeError("AuthClient needs a config without `raw`")
        for header in response.header_all("set-cookie"):
            name, value, deleted = _set_cookie_pair(header)
            if deleted:
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = value
        return response

    async def get(self, path: str, **kwargs: Any) -> Response:
        """``GET`` a path under the base path."""
        return await self.request("GET", path, **kwargs)

    async def post(self, path: str, **kwargs: Any) -> Response:
        """``POST`` to a path under the base path."""
        return await self.request("POST", path, **kwargs)

    async def csrf_token(self) -> str:
        """Fetch a CSRF token (and its cookie) as a client would."""
        response = await self.get("csrf")
        token: str = response.data()["csrfToken"]
        return token

    async def sign_in_with_credentials(
        self, provider_id: str = "credentials", **fields: str
    ) -> Response:
        """Sign in through a credentials provider with the given form fields."""
        form = {"csrfToken": await self.csrf_token(), **fields}
        return await self.post(f"callback/{provider_id}", form=form)
