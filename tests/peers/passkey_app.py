"""A small Quart app with passkeys, for several server processes on one PostgreSQL.

``tests/adapters/test_passkey_replays.py`` starts two hypercorn processes of it
(``hypercorn tests.peers.passkey_app:app``) behind one public URL, as a load balancer
would spread one site over them, and sends one passkey answer to both at once. Database
sessions in the PostgreSQL tables the environment names:

- ``AUTHUI_PASSKEY_POSTGRES_URL`` (a SQLAlchemy URL) and ``AUTHUI_PASSKEY_POSTGRES_SCHEMA``
  (where the tables are; ``create_all`` them first);
- ``AUTH_URL``: the site's public URL, the passkeys' origin (its host is the RP ID);
- ``AUTH_SECRET``, shared by the processes.

Routes: ``/auth/*``. Every response carries ``X-Served-By: <pid>``.
"""

from __future__ import annotations

import os

from quart import Quart, Response

from authui import AuthConfig, Experimental
from authui.adapters.sqlalchemy import SQLAlchemyAdapter, SQLNaming
from authui.providers.webauthn import Passkey
from authui.quart import AuthUI

adapter = SQLAlchemyAdapter(
    os.environ["AUTHUI_PASSKEY_POSTGRES_URL"],
    naming=SQLNaming(schema=os.environ["AUTHUI_PASSKEY_POSTGRES_SCHEMA"]),
)
config = AuthConfig(
    providers=[Passkey()],
    adapter=adapter,
    experimental=Experimental(enable_webauthn=True),
)

app = Quart(__name__)
AuthUI(app, config)


@app.after_request
async def served_by(response: Response) -> Response:
    response.headers["X-Served-By"] = str(os.getpid())
    return response


@app.after_serving
async def close_adapter() -> None:
    await adapter.close()
