"""Quart integration: the auth routes as a blueprint, ``auth()`` in views and templates,
``@auth.required``, server-side ``sign_in``/``sign_out``/``update``, and the ``SignIn`` /
``SignOut`` template macros.

The extension object holds no per-app state: everything lives in
``app.extensions["authui"]``, so one ``AuthUI`` can serve several apps.
"""

from __future__ import annotations

from authui.integrations.quart.extension import AuthUI as AuthUI
from authui.integrations.quart.state import current_config as current_config

__all__ = ["AuthUI", "current_config"]
