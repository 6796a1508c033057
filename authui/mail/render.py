"""The sign-in email, rendered from the active theme pack's ``emails/`` templates (through
the pages' Jinja environment, ``authui.pages.PageRenderer.environment``).

A pack (or the app, through ``Theme.template_dirs``) may override
``authui/emails/signin.subject.txt``, ``signin.txt`` and ``signin.html``; they get
``url``, ``host``, ``unlinked_host`` (the host with a zero-width space before each dot,
so that mail clients do not turn it into a link), ``hours``, ``brand_color``,
``button_text`` and ``background``.
"""

from __future__ import annotations

import math
from datetime import datetime
from urllib.parse import urlsplit

from jinja2 import Environment

from authui.mail.message import VerificationEmail

DEFAULT_BRAND = "#346df1"
DEFAULT_BUTTON_TEXT = "#ffffff"
BACKGROUND = "#f4f5f7"
_ZERO_WIDTH_SPACE = "\u200b"


def render_email(
    environment: Environment,
    *,
    brand_color: str | None,
    button_text: str | None,
    to: str,
    sender: str,
    url: str,
    expires: datetime,
    max_age: int,
) -> VerificationEmail:
    """The sign-in email for ``url``, sent to ``to``, in the theme's colours (its
    ``brand_color`` and ``button_text``, defaults for the unset ones)."""
    host = urlsplit(url).netloc
    context = {
        "url": url,
        "host": host,
        "unlinked_host": host.replace(".", _ZERO_WIDTH_SPACE + "."),
        "hours": max(1, math.ceil(max_age / 3600)),
        "brand_color": brand_color or DEFAULT_BRAND,
        "button_text": button_text or DEFAULT_BUTTON_TEXT,
        "background": BACKGROUND,
    }
    plain = environment.overlay(autoescape=False)
    subject = plain.get_template("authui/emails/signin.subject.txt").render(context)
    return VerificationEmail(
        to=to,
        sender=sender,
        subject=" ".join(subject.split()),
        text=plain.get_template("authui/emails/signin.txt").render(context),
        html=environment.get_template("authui/emails/signin.html").render(context),
        url=url,
        host=host,
        expires=expires,
    )
