"""The QR code of an authenticator app's enrolment, drawn here as inline SVG by segno: no
image is fetched from anywhere, and the secret never leaves the page."""

from __future__ import annotations

from markupsafe import Markup


def qr_svg(text: str, title: str) -> Markup:
    """An ``<svg>`` element drawing ``text`` as a QR code, dark on light whatever the
    page's colours (scanners read that best), with ``title`` for screen readers."""
    import segno

    code = segno.make(text, error="m", micro=False)
    svg = code.svg_inline(
        scale=5, border=4, dark="#000", light="#fff", title=title, svgclass="authui-qr"
    )
    return Markup(svg.replace("<svg ", '<svg role="img" ', 1))  # noqa: S704 (segno escapes the title)
