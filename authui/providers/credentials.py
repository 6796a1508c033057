"""Sign-in with a form of your own fields, checked by your ``authorize`` function."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from authui.providers.base import Provider

Authorize = Callable[..., Awaitable[Any] | Any]
"""``authorize(credentials, request)`` → a user mapping, or ``None`` to refuse.

``credentials`` is the whole submitted form (including ``csrfToken`` and ``callbackUrl``);
``request`` is the ``authui.http.Request``. A function taking one argument gets only
the credentials. Raise ``authui.errors.CredentialsSignin`` (or a subclass with its own
``code``) to refuse with a reason the sign-in page can show.
"""


@dataclass(frozen=True, slots=True, kw_only=True)
class Credentials(Provider):
    """Username/password (or any fields) sign-in.

    Sessions made this way are JWT sessions. The built-in sign-in page renders one input
    per entry of ``credentials``.

    Attributes:
        credentials: Input name → HTML input attributes plus ``label``, e.g.
            ``{"password": {"label": "Password", "type": "password"}}``. The page shows a
            label in the user's language when a catalogue translates it (the app's own:
            ``AuthConfig.translations``).
        authorize: Checks the submitted fields; see ``Authorize``.
    """

    id: str = "credentials"
    name: str = "Credentials"
    type: Literal["credentials"] = "credentials"
    credentials: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    authorize: Authorize | None = None
