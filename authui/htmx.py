"""Every htmx decision in one place: what counts as an htmx request, and how answers change.

An htmx request (``HX-Request: true``, not a history restore) that would be answered with a
redirect gets ``200`` with ``HX-Redirect`` instead, keeping its cookies, so the browser
navigates for real. A failed credentials sign-in is answered with the form itself, error
message shown and typed values kept, for htmx to swap in place. Responses that depend on
the header carry ``Vary: HX-Request``. Without JavaScript none of this applies: plain form
posts get plain redirects.
"""

from __future__ import annotations

from authui.http import InternalResponse, Request

VARY = ("Vary", "HX-Request")


def is_htmx(request: Request) -> bool:
    """Whether htmx sent the request (and not to restore its history cache)."""
    return (
        request.headers.get("hx-request") == "true"
        and request.headers.get("hx-history-restore-request") != "true"
    )


def redirect(internal: InternalResponse) -> InternalResponse:
    """``internal``'s redirect as ``200`` + ``HX-Redirect``, cookies and headers kept."""
    location = internal.redirect or ""
    return InternalResponse(
        status=200,
        headers=[*internal.headers, ("HX-Redirect", location), VARY],
        body="",
        cookies=internal.cookies,
    )


def fragment(internal: InternalResponse) -> InternalResponse:
    """Mark a fragment answer as varying with ``HX-Request``."""
    internal.headers.append(VARY)
    return internal
