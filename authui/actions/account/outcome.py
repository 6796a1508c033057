"""What an account action did, and how it is answered: a page for browsers (htmx or not),
``{failed, fieldErrors, formErrors, …}`` JSON for API clients and Python calls.

A browser's successful form post is redirected to its page with a ``notice`` key (never a
message: the page looks the key up in ``NOTICES``), so that reloading posts nothing again;
htmx gets the page itself, for it to swap the section in. A refused one gets its page back
with the errors and the typed values, 422 (200 for htmx, which swaps only successes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from authui import htmx
from authui.context import Context
from authui.cookies import Cookie
from authui.http import wants_page
from authui.i18n import N_, translate

NOTICES: Mapping[str, str] = {
    "profile-saved": N_("Your profile is saved."),
    "email-sent": N_(
        "Check the inbox of your new address: a link there confirms the change. "
        "Your address stays as it is until then."
    ),
    "email-changed": N_("Your email address is changed."),
    "unlinked": N_("The account is unlinked."),
    "passkey-added": N_("The passkey is added."),
    "passkey-renamed": N_("The passkey is renamed."),
    "passkey-deleted": N_("The passkey is deleted."),
    "session-ended": N_("That session is signed out."),
    "others-ended": N_("Every other session is signed out."),
    "everywhere-ended": N_("Every other browser is signed out within {delay}."),
    "reauthenticated": N_("You signed in again; go on with what you were doing."),
    "password-set": N_("Your password is set."),
    "password-changed": N_("Your password is changed, and every other browser signed out."),
    "password-removed": N_("Your password is removed."),
    "totp-started": N_(
        "Scan the QR code with your authenticator app, then type the code it shows."
    ),
    "totp-cancelled": N_("The set-up is cancelled; nothing was changed."),
    "mfa-on": N_(
        "Two-step verification is on. Save your recovery codes now: they are shown only this once."
    ),
    "mfa-updated": N_("Your two-step verification is updated."),
    "mfa-off": N_("Two-step verification is off."),
    "recovery-made": N_(
        "New recovery codes are made, and the old ones no longer work. Save "
        "them now: they are shown only this once."
    ),
    "trust-revoked": N_("Trust is revoked: those browsers ask for the second step again."),
}
"""The success messages a page shows, by the ``notice`` key of its URL. Their parameters
come from the server (``{delay}``: the configured ``update_age``), never from the URL."""


@dataclass(slots=True)
class Outcome:
    """The result of an account action.

    Attributes:
        failed: Nothing was changed.
        field_errors: Messages per form field (translated).
        form_errors: Messages about the whole form (translated).
        notice: A ``NOTICES`` key for a success, with ``notice_params`` to fill it.
        status: The HTTP status of a refusal (422 by default; 403, 409, 429 …).
        data: More of the JSON answer (``reauthenticate``: the step-up page's URL, …).
        values: The submitted values to show again in the form (never secrets).
        cookies: Cookies to set with the answer.
        leave: A URL to send the browser to instead of the page (a deleted account).
        stay: Answer a browser's success with the page itself, not a redirect: it shows
            what is shown once (new recovery codes, in ``data``).
    """

    failed: bool = False
    field_errors: dict[str, list[str]] = field(default_factory=dict)
    form_errors: list[str] = field(default_factory=list)
    notice: str | None = None
    notice_params: dict[str, str] = field(default_factory=dict)
    status: int = 200
    data: dict[str, Any] = field(default_factory=dict)
    values: dict[str, str] = field(default_factory=dict)
    cookies: list[Cookie] = field(default_factory=list)
    leave: str | None = None
    stay: bool = False

    def json(self) -> dict[str, Any]:
        """The JSON answer: ``failed``, ``fieldErrors``, ``formErrors``, then ``data``
        (and the notice's text as ``message``)."""
        answer: dict[str, Any] = {
            "failed": self.failed,
            "fieldErrors": self.field_errors,
            "formErrors": self.form_errors,
        }
        if self.notice is not None:
            answer["message"] = notice_text(self.notice, self.notice_params)
        return answer | self.data


def refused(
    message: str, *, field_name: str | None = None, status: int = 422, **params: Any
) -> Outcome:
    """A refusal with ``message`` (translated with ``params``): about ``field_name``, or
    about the whole form."""
    text = translate(message, **params)
    if field_name is None:
        return Outcome(failed=True, form_errors=[text], status=status)
    return Outcome(failed=True, field_errors={field_name: [text]}, status=status)


def done(notice: str, **params: str) -> Outcome:
    """A success, told with the ``NOTICES`` entry ``notice``."""
    return Outcome(notice=notice, notice_params=params)


def notice_text(key: str, params: Mapping[str, str]) -> str | None:
    """The translated text of a ``NOTICES`` key; ``None`` for an unknown key."""
    message = NOTICES.get(key)
    if message is None:
        return None
    try:
        return translate(message, **params)
    except (KeyError, IndexError):  # a notice key from a URL, without its parameters
        return None


def wants_json(ctx: Context) -> bool:
    """Whether the caller reads JSON: not htmx, and not a browser loading a page."""
    if htmx.is_htmx(ctx.request):
        return False
    headers = ctx.request.headers
    return not wants_page(headers.get("accept"), headers.get("content-type"))
