"""Sign-in email transports and the email provider factories."""

from __future__ import annotations
