"""authui's emails, rendered from the active theme pack's ``emails/`` templates (through
the pages' Jinja environment, ``authui.pages.PageRenderer.environment``); the HTML bodies
extend ``authui/emails/layout.html``, the frame of tables email clients render.

A pack (or the app, through ``Theme.template_dirs``) may override
``authui/emails/signin.subject.txt``, ``signin.txt`` and ``signin.html``; they get
``url``, ``host``, ``unlinked_host`` (the host with a zero-width space before each dot,
so that mail clients do not turn it into a link), ``hours``, ``brand_color``,
``button_text``, ``background``, and the request's language's ``lang`` tag and ``dir``
(``ltr`` or ``rtl``): an email is written in the language of the request that sends it.

The account center's emails (a link that confirms a new address, the notices of a changed
address and of a sign-in from a new browser) share ``authui/emails/account.subject.txt``,
``account.txt`` and ``account.html``, which get ``heading``, ``lines`` (paragraphs),
``button`` (its label, or none) and ``url`` besides the colours and hosts.

What every email shares (recipient, sender, link, its expiry, the theme's colours) is a
``Letter``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from jinja2 import Environment

from authui.i18n import current
from authui.mail.message import VerificationEmail

DEFAULT_BRAND = "#346df1"
DEFAULT_BUTTON_TEXT = "#ffffff"
BACKGROUND = "#f4f5f7"
_ZERO_WIDTH_SPACE = "\u200b"


@dataclass(frozen=True, slots=True)
class Letter:
    """Who sends what to whom, in which colours: what every email of authui shares."""

    to: str
    sender: str
    url: str
    expires: datetime
    brand_color: str | None = None
    button_text: str | None = None


def _render(
    environment: Environment, name: str, letter: Letter, context: dict[str, Any]
) -> VerificationEmail:
    """``authui/emails/<name>.subject.txt``, ``.txt`` and ``.html`` rendered with
    ``context``, the link, the hosts and the colours."""
    host = urlsplit(letter.url).netloc
    context = {
        **context,
        "url": letter.url,
        "host": host,
        "unlinked_host": host.replace(".", _ZERO_WIDTH_SPACE + "."),
        "brand_color": letter.brand_color or DEFAULT_BRAND,
        "button_text": letter.button_text or DEFAULT_BUTTON_TEXT,
        "background": BACKGROUND,
        "lang": current().tag,
        "dir": current().direction,
    }
    plain = environment.overlay(autoescape=False)
    subject = plain.get_template(f"authui/emails/{name}.subject.txt").render(context)
    return VerificationEmail(
        to=letter.to,
        sender=letter.sender,
        subject=" ".join(subject.split()),
        text=plain.get_template(f"authui/emails/{name}.txt").render(context),
        html=environment.get_template(f"authui/emails/{name}.html").render(context),
        url=letter.url,
        host=host,
        expires=letter.expires,
        language=current().tag,
    )


def render_account_email(
    environment: Environment,
    letter: Letter,
    *,
    heading: str,
    lines: list[str],
    button: str | None,
) -> VerificationEmail:
    """An email of the account center: ``heading`` (also its subject), the paragraphs
    ``lines``, and a button labelled ``button`` that opens the letter's link (a plain link
    without one)."""
    context = {"heading": heading, "lines": lines, "button": button}
    return _render(environment, "account", letter, context)


def render_email(environment: Environment, letter: Letter, *, max_age: int) -> VerificationEmail:
    """The sign-in email of the letter's link, which works for ``max_age`` seconds."""
    return _render(environment, "signin", letter, {"hours": max(1, math.ceil(max_age / 3600))})
