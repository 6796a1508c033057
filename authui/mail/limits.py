"""How many sign-in emails an address or a client may ask for in a time window.

``authui.throttle`` counts the requests (through the adapter's shared counters when it has
them) and refuses one over a limit with ``TooManyAttempts``: 429 and ``Retry-After``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class SendLimits:
    """Limits on sign-in emails (``EmailProvider.limits``); ``None`` turns one off.

    The defaults are stricter than django-allauth's for password-reset emails
    (``reset_password``: 5 per minute per address, 20 per minute per IP address).

    Attributes:
        per_address: Links one email address may be sent per window.
        per_client: Links one client (IP address, as ``authui.proxies.client_address``
            reads it) may ask for per window, whatever the addresses.
        window: The window's length in seconds.
    """

    per_address: int | None = 5
    per_client: int | None = 20
    window: int = 60 * 60
