"""A Quart app whose only way in is a passkey (``hypercorn tests.peers.passkey_only_app:app``),
for the browser tests of the sign-in page's passkey-only form: the email field and its
buttons belong to the passkey provider alone, with no sign-in link beside them.

One process, users and passkeys in memory; ``AUTH_SECRET`` and ``AUTH_TRUSTED_HOSTS``
from the environment. Routes: ``/auth/*``.
"""

from __future__ import annotations

import os

from quart import Quart

from authui import AuthConfig, Experimental, set_env_defaults
from authui.adapters.memory import MemoryAdapter
from authui.providers.webauthn import Passkey
from authui.quart import AuthUI

config = set_env_defaults(
    os.environ,
    AuthConfig(
        providers=[Passkey()],
        adapter=MemoryAdapter(),
        experimental=Experimental(enable_webauthn=True),
    ),
)

app = Quart(__name__)
AuthUI(app, config)
