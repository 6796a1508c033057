"""OAuth through the Quart integration: ``sign_in("idp", login_hint=…)`` from a view, the
provider's button in templates, and the callback answered by the blueprint."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from quart import Quart, Response, render_template_string

from authui import OIDC
from authui.quart import AuthUI
from tests.conftest import make_config
from tests.oauth.standin import CLIENT_ID, OIDCStandIn

ISSUER = "https://idp.example.com"


async def test_sign_in_helper_passes_extra_parameters_and_the_callback_signs_in(
    tmp_path: Path,
) -> None:
    service = OIDCStandIn(ISSUER, claims={"sub": "ada", "name": "Ada", "email": "ada@x.io"})
    provider = dataclasses.replace(
        OIDC(id="idp", name="Example IdP", issuer=ISSUER),
        client_id=CLIENT_ID,
        client_auth="none",
        custom_fetch=service,
    )
    app = Quart(__name__, template_folder=str(tmp_path))
    auth_ui = AuthUI(app, make_config(providers=[provider]))

    @app.post("/login")
    async def login() -> Response:
        return await auth_ui.sign_in("idp", redirect_to="/me", login_hint="ada@x.io")

    @app.get("/")
    async def home() -> str:
        return await render_template_string("{{ SignIn('idp') }}")

    @app.get("/me")
    async def me() -> str:
        session = await auth_ui.auth()
        return session["user"]["name"] if session else "nobody"

    client = app.test_client()
    button = await (await client.get("/")).get_data(as_text=True)
    assert 'action="/auth/signin/idp"' in button
    assert "Sign in with Example IdP" in button
    started = await client.post("/login")
    assert started.status_code == 302
    params = dict(parse_qsl(urlsplit(started.headers["Location"]).query))
    assert params["login_hint"] == "ada@x.io"
    assert params["redirect_uri"] == "http://localhost/auth/callback/idp"
    service.authorization_params = params
    back = await client.get(
        "/auth/callback/idp", query_string={"code": "c", "state": params["state"]}
    )
    assert back.status_code == 302
    assert back.headers["Location"] == "http://localhost/me"
    assert await (await client.get("/me")).get_data(as_text=True) == "Ada"
