"""When and how the user of a session last proved who they are: ``auth_time`` and ``amr``,
as OpenID Connect names them, which the account center's step-up reads.

A JWT session carries them as claims of its token (``auth_time``: seconds since the epoch;
``amr``: a list), with ``sv``, the user's session version when the token was made (see
``authui.sessions.versions``). A database session keeps them in its details row
(``SessionDetails``, an authui table beside Auth.js's ``sessions``). A session made by
Auth.js has neither: its sign-in counts as long ago.

``amr`` values: ``fed`` (an OAuth or OpenID provider), ``email`` (a sign-in link),
``hwk`` (a passkey), ``pwd`` (credentials or a password); then, after a second factor,
``otp`` (an authenticator app's code or a recovery code) or ``hwk`` (a passkey), and
``mfa`` for a sign-in that counts as multi-factor (two factors, or one in a browser the
user trusted after two).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from authui.adapters.base import AdapterCalls
from authui.context import Context
from authui.dates import now

AMR_OF_ACCOUNT_TYPE: Mapping[str, str] = {
    "oauth": "fed",
    "oidc": "fed",
    "email": "email",
    "webauthn": "hwk",
    "credentials": "pwd",
}
"""The ``amr`` value of a sign-in, by the type of the account it signed in with."""

MULTI_FACTOR = "mfa"
"""The ``amr`` value of a multi-factor sign-in."""
ONE_TIME_CODE = "otp"
"""The ``amr`` value of a second factor by code (an authenticator app's, a recovery code)."""
PASSKEY = "hwk"


@dataclass(frozen=True, slots=True)
class SignInFacts:
    """When the user last signed in, in this session, and with what.

    Attributes:
        auth_time: When; ``None`` when unknown (a session Auth.js made).
        amr: How: ``("fed",)``, ``("hwk",)``, … (see the module's list).
    """

    auth_time: datetime | None
    amr: tuple[str, ...] = ()

    def fresh(self, seconds: int) -> bool:
        """Whether the sign-in was less than ``seconds`` ago."""
        if self.auth_time is None:
            return False
        return now() - self.auth_time < timedelta(seconds=seconds)

    @property
    def multi_factor(self) -> bool:
        """Whether the sign-in counts as multi-factor: a second factor (``mfa``), or a
        passkey (which verified its user: something held and something known or been)."""
        return MULTI_FACTOR in self.amr or PASSKEY in self.amr

    def json(self) -> dict[str, Any]:
        """``{"authTime": ISO 8601 or None, "amr": [...]}``, for JSON answers."""
        when = self.auth_time.isoformat() if self.auth_time else None
        return {"authTime": when, "amr": list(self.amr)}


UNKNOWN = SignInFacts(None)
"""The facts of a session that has none."""


def facts_kept(strategy: str, adapter: AdapterCalls | None) -> bool:
    """Whether sessions of ``strategy`` record their facts: JWT sessions always; database
    sessions when the adapter keeps their details (``save_session_details`` and
    ``get_session_details``). Without them no sign-in can be known to be recent."""
    if strategy != "database":
        return True
    return (
        adapter is not None
        and adapter.has("save_session_details")
        and adapter.has("get_session_details")
    )


def recent_enough(ctx: Context, facts: SignInFacts) -> bool:
    """Whether a change that adds a way in may go on: the sign-in is recent
    (``AccountOptions.reauthenticate_after``), or this store cannot tell (``facts_kept``),
    when nothing is asked, as before the account center."""
    options = ctx.options
    if not facts_kept(options.strategy, options.adapter):
        return True
    return facts.fresh(options.config.account.reauthenticate_after)


def new_sign_in(account: Mapping[str, Any] | None) -> SignInFacts:
    """The facts of a sign-in happening now with ``account`` (its ``type`` says how)."""
    method = AMR_OF_ACCOUNT_TYPE.get(str((account or {}).get("type")))
    return SignInFacts(now(), (method,) if method else ())


def token_claims(facts: SignInFacts) -> dict[str, Any]:
    """The JWT claims of ``facts`` (none for unknown facts)."""
    if facts.auth_time is None:
        return {}
    return {"auth_time": int(facts.auth_time.timestamp()), "amr": list(facts.amr)}


def facts_of_token(token: Mapping[str, Any]) -> SignInFacts:
    """The facts a session's JWT carries; ``UNKNOWN`` for a token without them."""
    when, amr = token.get("auth_time"), token.get("amr")
    if not isinstance(when, int | float) or isinstance(when, bool):
        return UNKNOWN
    methods = tuple(m for m in amr if isinstance(m, str)) if isinstance(amr, list) else ()
    return SignInFacts(datetime.fromtimestamp(when, UTC), methods)
