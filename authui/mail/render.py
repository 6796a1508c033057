"""The sign-in email, rendered from the active theme pack's ``emails/`` templates (through
the pages' Jinja environment, ``authui.pages.PageRenderer.environment``).

A pack (or the app, through ``Theme.template_dirs``) may override
``authui/emails/signin.subject.txt``, ``signin.txt`` and ``signin.html``; they get
``url``, ``host``, ``unlinked_host`` (the host with a zero-width space before each dot,
so that mail clients do not turn it into a link), ``hours``, ``brand_color``,
``button_text`` and ``background``.

The account center's emails (a link that confirms a new address, the notices of a changed
address and of a sign-in from a new browser) share ``authui/emails/account.subject.txt``,
``account.txt`` and ``account.html``, which get ``heading``, ``lines`` (paragraphs),
``button`` (its label, or none) and ``url`` besides the colours and hosts.
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


def _colours(brand_color: str | None, button_text: str | None) -> dict[str, str]:
    return {
        "brand_color": brand_color or DEFAULT_BRAND,
        "button_text": button_text or DEFAULT_BUTTON_TEXT,
        "background": BACKGROUND,
    }


def _hosts(url: str) -> dict[str, str]:
    host = urlsplit(url).netloc
    return {"host": host, "unlinked_host": host.replace(".", _ZERO_WIDTH_SPACE + ".")}


def render_account_email(
    environment: Environment,
    *,
    brand_color: str | None,
    button_text: str | None,
    to: str,
    sender: str,
    url: str,
    heading: str,
    lines: list[str],
    button: str | None,
    expires: datetime,
) -> VerificationEmail:
    """An email of the account center to ``to``: ``heading`` (also its subject), the
    paragraphs ``lines``, and a button labelled ``button`` that opens ``url`` (or ``url``
    as a plain link without one); ``expires`` is when its link stops working."""
    hosts = _hosts(url)
    context = {
        "url": url,
        "heading": heading,
        "lines": lines,
        "button": button,
        **hosts,
        **_colours(brand_color, button_text),
    }
    plain = environment.overlay(autoescape=False)
    subject = plain.get_template("authui/emails/account.subject.txt").render(context)
    return VerificationEmail(
        to=to,
        sender=sender,
        subject=" ".join(subject.split()),
        text=plain.get_template("authui/emails/account.txt").render(context),
        html=environment.get_template("authui/emails/account.html").render(context),
        url=url,
        host=hosts["host"],
        expires=expires,
    )


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
    hosts = _hosts(url)
    context = {
        "url": url,
        **hosts,
        "hours": max(1, math.ceil(max_age / 3600)),
        **_colours(brand_color, button_text),
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
        host=hosts["host"],
        expires=expires,
    )
