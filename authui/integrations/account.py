"""The account center from Python: what the app's own views call (``auth.account`` in Quart,
``authui.starlette.account(request)`` in Starlette and FastAPI).

Each method runs the same action as the account center's page, on the browser's behalf
(its cookies, no CSRF check: the app is the caller), and answers what the page's JSON
says: ``AccountResult``. A change that needs a recent sign-in is refused with
``reauthenticate`` set: send the browser there (it comes back to the page named). The
cookies an action sets (a JWT session re-issued with a new name, a deleted account's
sign-out) go on the view's response, as ``update`` does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from authui.cookies import Cookie
from authui.errors import UnknownAction
from authui.http import InternalResponse
from authui.i18n import translate
from authui.integrations.calls import Caller


@dataclass(frozen=True, slots=True)
class AccountResult:
    """What an account action answered.

    Attributes:
        failed: Nothing was changed (or, for a read, nothing could be read).
        status: The HTTP status the page's JSON had (200, 401 signed out, 403 a recent
            sign-in needed, 404 not yours or not offered here, 409 the last way in, 422 a
            bad value, 429 too many, 501 the adapter cannot).
        field_errors: Messages per form field.
        form_errors: Messages about the whole request.
        message: What a success says.
        reauthenticate: The step-up page's URL, when a recent sign-in is needed.
        data: The page's data (for reads) or more of the answer.
    """

    failed: bool
    status: int
    field_errors: Mapping[str, list[str]] = field(default_factory=dict)
    form_errors: list[str] = field(default_factory=list)
    message: str | None = None
    reauthenticate: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


def _result(answer: InternalResponse) -> AccountResult:
    body = answer.body if isinstance(answer.body, dict) else {}
    known = {"failed", "fieldErrors", "formErrors", "message", "reauthenticate"}
    failed = answer.status >= 400 or bool(body.get("failed"))
    return AccountResult(
        failed=failed,
        status=answer.status,
        field_errors=dict(body.get("fieldErrors") or {}),
        form_errors=list(body.get("formErrors") or []),
        message=body.get("message") if isinstance(body.get("message"), str) else None,
        reauthenticate=body.get("reauthenticate")
        if isinstance(body.get("reauthenticate"), str)
        else None,
        data={k: v for k, v in body.items() if k not in known},
    )


class AccountCalls:
    """The account center's actions for the current request's user.

    Args:
        caller: Makes the ``Caller`` of the current request.
        keep: Takes the cookies an action sets, for the view's response.
    """

    def __init__(
        self,
        caller: Callable[[], Awaitable[Caller]],
        keep: Callable[[list[Cookie]], None],
    ) -> None:
        self._caller = caller
        self._keep = keep

    async def _run(self, page: str, body: Mapping[str, Any] | None = None) -> AccountResult:
        caller = await self._caller()
        path = f"{caller.integration.base_path}/account/{page}".rstrip("/")
        try:
            answer = await caller.call(path, None if body is None else dict(body))
        except UnknownAction:  # turned off, no adapter, or a page this setup does not offer
            return AccountResult(
                failed=True,
                status=404,
                form_errors=[translate("The account center does not offer this here.")],
            )
        self._keep(caller.kept_cookies(answer))
        return _result(answer)

    # -- reads ---------------------------------------------------------------------------

    async def overview(self) -> AccountResult:
        """The user, when and how they last signed in (``data["signIn"]``: ``authTime``
        and ``amr``), and how many linked accounts and passkeys they have."""
        return await self._run("")

    async def connections(self) -> AccountResult:
        """The linked accounts (``data["accounts"]``) and the providers to link."""
        return await self._run("connections")

    async def passkeys(self) -> AccountResult:
        """The passkeys (``data["passkeys"]``: id, name, synced, created, lastUsed)."""
        return await self._run("passkeys")

    async def sessions(self) -> AccountResult:
        """The sessions (``data["sessions"]``, database sessions only)."""
        return await self._run("sessions")

    async def activity(self) -> AccountResult:
        """The security activity, newest first (``data["events"]``)."""
        return await self._run("activity")

    async def password(self) -> AccountResult:
        """Whether the user has a password (``data["hasPassword"]``, ``updated``), with a
        password provider configured."""
        return await self._run("password")

    async def two_factor(self) -> AccountResult:
        """Two-step verification: on or off (``data["on"]``), the authenticator app
        (``totp``), passkeys as the second step (``passkeyFactor``), recovery codes left,
        trusted browsers, and a set-up in progress (``setup``: ``uri`` and ``key``)."""
        return await self._run("two-factor")

    # -- changes -------------------------------------------------------------------------

    async def update_profile(
        self, *, name: str | None = None, image: str | None = None
    ) -> AccountResult:
        """Set the display name and the picture's URL (``None``/empty: none)."""
        return await self._run(
            "profile", {"intent": "profile", "name": name or "", "image": image or ""}
        )

    async def change_email(self, email: str) -> AccountResult:
        """Send the link that confirms ``email`` as the new address (a recent sign-in)."""
        return await self._run("profile", {"intent": "email", "email": email})

    async def unlink(self, provider: str, provider_account_id: str) -> AccountResult:
        """Unlink an account (a recent sign-in; never the last way in); its tokens are
        revoked at the provider where it can be."""
        body = {"intent": "unlink", "provider": provider, "providerAccountId": provider_account_id}
        return await self._run("connections", body)

    async def rename_passkey(self, passkey_id: str, name: str) -> AccountResult:
        """Give a passkey a name."""
        return await self._run(
            "passkeys", {"intent": "rename", "passkey": passkey_id, "name": name}
        )

    async def delete_passkey(self, passkey_id: str) -> AccountResult:
        """Delete a passkey (a recent sign-in; never the last way in)."""
        return await self._run("passkeys", {"intent": "delete", "passkey": passkey_id})

    async def revoke_session(self, handle: str) -> AccountResult:
        """Sign out one other database session (its ``handle`` from ``sessions()``)."""
        return await self._run("sessions", {"intent": "revoke", "session": handle})

    async def revoke_other_sessions(self) -> AccountResult:
        """Sign out every other database session of the user (a recent sign-in)."""
        return await self._run("sessions", {"intent": "revoke-others"})

    async def sign_out_everywhere(self) -> AccountResult:
        """JWT sessions: end every other browser's session within ``update_age`` (a recent
        sign-in); this one stays."""
        return await self._run("sessions", {"intent": "everywhere"})

    async def set_password(self, password: str) -> AccountResult:
        """Set or change the password (a recent sign-in; the password rules apply); the
        user's other sessions are signed out."""
        return await self._run("password", {"intent": "save", "password": password})

    async def remove_password(self) -> AccountResult:
        """Remove the password (a recent sign-in; never the last way in)."""
        return await self._run("password", {"intent": "remove"})

    async def start_authenticator_app(self) -> AccountResult:
        """Begin setting up an authenticator app (a recent sign-in): the secret is kept in
        this browser's cookie until ``confirm_authenticator_app``; ``two_factor()`` then
        gives its ``setup``."""
        return await self._run("two-factor", {"intent": "totp-start"})

    async def confirm_authenticator_app(self, code: str) -> AccountResult:
        """Store the app being set up, once ``code`` is one of its codes; turning two-step
        verification on answers the new recovery codes (``data["recoveryCodes"]``)."""
        return await self._run("two-factor", {"intent": "totp-confirm", "code": code})

    async def new_recovery_codes(self) -> AccountResult:
        """Replace the recovery codes (``data["recoveryCodes"]``, shown this once)."""
        return await self._run("two-factor", {"intent": "recovery-new"})

    async def turn_off_two_factor(self) -> AccountResult:
        """Turn two-step verification off: its factors, recovery codes and trusted
        browsers go (a recent sign-in)."""
        return await self._run("two-factor", {"intent": "off"})

    async def revoke_trusted_browsers(self, browser_id: str | None = None) -> AccountResult:
        """End the trust of one browser (its ``id`` from ``two_factor()``), or of all."""
        if browser_id is None:
            return await self._run("two-factor", {"intent": "revoke-all"})
        return await self._run("two-factor", {"intent": "revoke", "browser": browser_id})

    async def delete_account(self) -> AccountResult:
        """Delete the user with everything kept for them, and sign this browser out (a
        recent sign-in)."""
        return await self._run("delete", {"intent": "delete", "confirm": "yes"})
