"""Every htmx decision in one place: what counts as an htmx request, and how answers change.

An htmx request (``HX-Request: true``, not a history restore) that would be answered with a
redirect gets ``200`` with ``HX-Redirect`` instead, keeping its cookies, so the browser
navigates for real. A failed credentials sign-in is answered with the form itself, error
message shown and typed values kept, for htmx to swap in place. Responses that depend on
the header carry ``Vary: HX-Request``. Without JavaScript none of this applies: plain form
posts get plain redirects.
"""

from __future__ import annotations

from collections.abc import Callable

from authui.http import InternalResponse, Request

VARY = ("Vary", "HX-Request")


def is_htmx(request: Request) -> bool:
    """Whether htmx sent the request (and not to restore its history cache)."""
    return (
        request.headers.get("hx-request") == "true"
        and request.headers.get("hx-history-restore-request") != "true"
    )


def answer(request: Request, internal: InternalResponse) -> InternalResponse:
    """An action's answer as the client reads it: for htmx, a redirect becomes ``200`` with
    ``HX-Redirect``, cookies and headers kept; anything else is unchanged."""
    if internal.redirect is None or not is_htmx(request):
        return internal
    return _redirect(internal.redirect, internal)


def form(request: Request, make: Callable[[], InternalResponse | None]) -> InternalResponse | None:
    """A failed form post's answer for htmx: the form ``make`` renders, its message shown
    and the typed values kept, for htmx to swap in place; ``None`` for a request htmx did
    not send, or a failure that has no form."""
    if not is_htmx(request):
        return None
    swapped = make()
    if swapped is not None:
        swapped.headers.append(VARY)
    return swapped


def failure(
    request: Request, make: Callable[[], InternalResponse | None], url: str, status: int
) -> InternalResponse | None:
    """The answer for htmx to an error with a ``status`` of its own: the form ``make``
    renders, else ``HX-Redirect`` to the error page ``url`` (htmx swaps in no error
    answer, so the browser goes there); ``None`` for a request htmx did not send."""
    if not is_htmx(request):
        return None
    swapped = form(request, make) or _redirect(url, InternalResponse())
    swapped.status = status
    return swapped


def _redirect(location: str, internal: InternalResponse) -> InternalResponse:
    return InternalResponse(
        status=200,
        headers=[*internal.headers, ("HX-Redirect", location), VARY],
        body="",
        cookies=internal.cookies,
    )
