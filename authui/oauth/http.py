"""Sending a provider's requests: its ``custom_fetch``, else the shared httpx client."""

from __future__ import annotations

from typing import Any

import httpx

from authui.http_client import shared_client
from authui.providers.oauth import OAuthProvider


async def fetch(provider: OAuthProvider, request: httpx.Request) -> httpx.Response:
    """Send ``request`` for ``provider``; the body is read before returning."""
    if provider.custom_fetch is not None:
        response = await provider.custom_fetch(request)
        try:
            response.request  # noqa: B018  (a custom_fetch may build it without one)
        except RuntimeError:
            response.request = request
    else:
        response = await shared_client().send(request)
    await response.aread()
    return response


class ProviderHTTPError(Exception):
    """A provider's endpoint answered with an error or with something that is not JSON.

    Attributes:
        url: The endpoint, without its query.
        status: The HTTP status.
        body: The start of the answer, for the log (never shown to users).
    """

    def __init__(self, what: str, response: httpx.Response, reason: str):
        self.url = str(response.request.url.copy_with(query=None))
        self.status = response.status_code
        self.body = response.text[:300]
        super().__init__(f"{what} at {self.url} answered {self.status}: {reason}")


async def fetch_json(provider: OAuthProvider, request: httpx.Request, what: str) -> dict[str, Any]:
    """Send ``request`` and return its JSON object.

    Raises:
        ProviderHTTPError: A non-2xx status, or a body that is not a JSON object. An
            OAuth ``error`` (with ``error_description``) is named in the message.
    """
    response = await fetch(provider, request)
    try:
        body = response.json()
    except ValueError:
        body = None
    if not response.is_success:
        reason = "error"
        if isinstance(body, dict) and isinstance(body.get("error"), str):
            reason = body["error"]
            if isinstance(body.get("error_description"), str):
                reason += f" ({body['error_description']})"
        raise ProviderHTTPError(what, response, reason)
    if not isinstance(body, dict):
        raise ProviderHTTPError(what, response, "the answer is not a JSON object")
    return body
