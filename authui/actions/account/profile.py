"""``<base>/account/profile``: the user's name and picture, and the change of their email
address (``authui.actions.account.email_change``)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from authui.actions.account import email_change
from authui.actions.account.changes import change_user
from authui.actions.account.gate import Holder
from authui.actions.account.outcome import Outcome, done, refused
from authui.actions.account.pages import Page
from authui.actions.activity import PROFILE_CHANGED, record
from authui.adapters.base import UserChanges
from authui.context import Context
from authui.i18n import N_, translate, translate_plural

MAX_NAME_LENGTH = 100
MAX_IMAGE_URL_LENGTH = 2048


async def view(ctx: Context, holder: Holder) -> dict[str, Any]:
    return {
        "maxNameLength": MAX_NAME_LENGTH,
        "emailChange": email_change.offered(ctx),
        "emailDraft": ctx.query.get("email", ""),
    }


def _image(value: object) -> str | None:
    """The picture's URL: an https URL (or http on localhost), or ``None`` for none.

    Raises:
        ValueError: Anything else.
    """
    if not isinstance(value, str) or not value.strip():
        return None
    url = value.strip()
    parts = urlsplit(url)
    local = parts.hostname in ("localhost", "127.0.0.1")
    if len(url) > MAX_IMAGE_URL_LENGTH or not parts.netloc:
        raise ValueError
    if parts.scheme != "https" and not (parts.scheme == "http" and local):
        raise ValueError
    return url


async def _save_profile(ctx: Context, holder: Holder) -> Outcome:
    raw_name = ctx.body.get("name")
    name = " ".join(raw_name.split()) if isinstance(raw_name, str) else ""
    values = {"name": name, "image": str(ctx.body.get("image") or "")}
    errors: dict[str, list[str]] = {}
    if len(name) > MAX_NAME_LENGTH:
        errors["name"] = [
            translate_plural(
                "Enter a name of at most {n} character.",
                "Enter a name of at most {n} characters.",
                MAX_NAME_LENGTH,
            )
        ]
    try:
        image = _image(ctx.body.get("image"))
    except ValueError:
        errors["image"] = [translate("Enter the address of a picture, starting with https://.")]
    if errors:
        return Outcome(failed=True, field_errors=errors, status=422, values=values)
    changes: UserChanges = {"name": name or None, "image": image}
    if changes == {"name": holder.user.name, "image": holder.user.image}:
        return done("profile-saved")
    _, cookies = await change_user(ctx, holder.adapter, holder.user.id, changes, own_session=True)
    await record(ctx, holder.user.id, PROFILE_CHANGED)
    saved = done("profile-saved")
    saved.cookies = cookies
    return saved


async def act(ctx: Context, holder: Holder) -> Outcome:
    intent = ctx.body.get("intent")
    if intent == "email":
        return await email_change.request(ctx, holder)
    if intent in (None, "profile"):
        return await _save_profile(ctx, holder)
    return refused("This form cannot do that.")


PAGE = Page("profile", N_("Profile"), "account/profile.html", view, act)
