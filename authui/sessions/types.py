"""The shape of the session JSON that ``GET <base>/session``, ``auth()`` and
``get_session`` give, for editors and type checkers."""

from __future__ import annotations

from typing_extensions import TypedDict  # pydantic (FastAPI) reads it on Python < 3.12


class SessionUser(TypedDict, total=False):
    """The signed-in user as the session shows it (the ``session`` callback may add
    fields, such as ``id``)."""

    id: str
    name: str | None
    email: str | None
    image: str | None


class Session(TypedDict):
    """A session: the user and when the session ends (ISO 8601, UTC).

    The ``session`` callback decides the real content; a subclass of this type (a
    ``TypedDict`` with the extra keys) tells the type checker about them.
    """

    user: SessionUser
    expires: str
