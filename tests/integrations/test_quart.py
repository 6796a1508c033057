"""The Quart integration through Quart's test client."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest
from quart import Blueprint, Quart, Response, render_template_string, request
from quart.typing import TestClientProtocol as Client

from authui import AuthConfig, Callbacks, CredentialsSignin, Pages, SessionOptions, Theme
from authui.errors import MissingSecret
from authui.quart import AuthUI
from tests.conftest import CREDENTIALS, make_config

BROWSER = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
"""What a browser sends when it opens a page."""
PAGE = """<!doctype html><title>t</title>
{% if user %}<p id="who">{{ user.name }}</p>{{ SignOut() }}{% else %}{{ SignIn() }}{% endif %}"""


def build_app(tmp_path: Path, config: Any, **kwargs: Any) -> tuple[Quart, AuthUI]:
    app = Quart(__name__, template_folder=str(tmp_path))
    auth_ui = AuthUI(app, config, **kwargs)
    auth = auth_ui.auth

    @app.get("/")
    async def home() -> str:
        return await render_template_string(PAGE)

    @app.get("/private")
    @auth.required
    async def private() -> str:
        session = await auth()
        assert session is not None
        return f"secret for {session['user']['name']}"

    @app.get("/api/me")
    @auth.required
    async def api_me() -> dict[str, Any]:
        session = await auth()
        assert session is not None
        return session

    @app.post("/login")
    async def login() -> Response:
        form = await request.form
        try:
            return await auth_ui.sign_in(
                "credentials", redirect_to="/private", username=form["u"], password=form["p"]
            )
        except CredentialsSignin as error:
            return Response(f"refused: {error.code}", status=401)

    @app.post("/logout")
    async def logout() -> Response:
        await auth()  # reading the session first queues its refreshed cookie
        return await auth_ui.sign_out(redirect_to="/")

    @app.post("/rename")
    async def rename() -> dict[str, Any]:
        session = await auth_ui.update({"name": (await request.form)["name"]})
        return session or {}

    return app, auth_ui


def rename_jwt(token: dict[str, Any], trigger: str | None = None, session: Any = None) -> Any:
    if trigger == "update" and isinstance(session, dict):
        token["name"] = session["name"]
    return token


@pytest.fixture
def app(tmp_path: Path) -> Quart:
    return build_app(tmp_path, make_config(callbacks=Callbacks(jwt=rename_jwt)))[0]


async def csrf_of(client: Client) -> str:
    data = await (await client.get("/auth/csrf")).get_json()
    token: str = data["csrfToken"]
    return token


async def sign_in(client: Client) -> None:
    response = await client.post(
        "/auth/callback/credentials",
        form={"csrfToken": await csrf_of(client), "username": "ada", "password": "correct horse"},
    )
    assert response.status_code == 302


async def test_blueprint_serves_the_auth_routes(app: Quart) -> None:
    client = app.test_client()
    response = await client.get("/auth/providers")
    assert (await response.get_json())["credentials"]["signinUrl"] == (
        "http://localhost/auth/signin/credentials"
    )
    page = await client.get("/auth/signin")
    assert page.status_code == 200
    assert "Content-Security-Policy" in page.headers
    put = await client.put("/auth/session")
    assert (put.status_code, await put.get_data()) == (400, b'"Bad request."')


async def test_required_redirects_html_to_sign_in_and_back(app: Quart) -> None:
    client = app.test_client()
    response = await client.get("/private?tab=2", headers=BROWSER)
    assert response.status_code == 302
    assert response.headers["Location"] == "/auth/signin?callbackUrl=%2Fprivate%3Ftab%3D2"
    await sign_in(client)
    assert await (await client.get("/private")).get_data(as_text=True) == "secret for Ada Lovelace"


async def test_required_answers_json_with_401(app: Quart) -> None:
    client = app.test_client()
    for accept in ("application/json", "*/*", None):  # fetch() and curl send */*
        headers = {"Accept": accept} if accept else {}
        response = await client.get("/api/me", headers=headers)
        assert response.status_code == 401, accept
        assert await response.get_json() == {"message": "Sign in to access this resource."}
        assert response.headers["WWW-Authenticate"] == 'Bearer realm="authui"'
    await sign_in(client)
    me = await client.get("/api/me", headers={"Accept": "application/json"})
    assert (await me.get_json())["user"]["email"] == "ada@example.com"


async def test_authorized_callback_decides(tmp_path: Path) -> None:
    def only_admins(auth: dict[str, Any] | None, request: Any) -> Any:
        if request.path == "/api/me":
            return Response("custom", status=418)
        return bool(auth and auth["user"]["email"] == "root@example.com")

    app, _ = build_app(tmp_path, make_config(callbacks=Callbacks(authorized=only_admins)))
    client = app.test_client()
    await sign_in(client)
    assert (await client.get("/private", headers=BROWSER)).status_code == 302
    assert (await client.get("/api/me")).status_code == 418


async def test_auth_and_user_in_templates_with_macros(app: Quart) -> None:
    client = app.test_client()
    html = await (await client.get("/")).get_data(as_text=True)
    assert 'href="/auth/signin?callbackUrl=%2F"' in html
    await sign_in(client)
    html = await (await client.get("/")).get_data(as_text=True)
    assert '<p id="who">Ada Lovelace</p>' in html
    match = re.search(
        r'action="/auth/signout".*?name="csrfToken" value="([0-9a-f]{64})"', html, re.S
    )
    assert match is not None
    out = await client.post("/auth/signout", form={"csrfToken": match.group(1), "callbackUrl": "/"})
    assert out.status_code == 302
    assert "who" not in await (await client.get("/")).get_data(as_text=True)


async def test_macro_issues_the_csrf_cookie_it_needs(tmp_path: Path) -> None:
    app, _ = build_app(tmp_path, make_config())

    @app.get("/out")
    async def out() -> str:
        return await render_template_string("{{ SignOut(redirect_to='/bye') }}")

    @app.get("/out-of-both")
    async def out_of_both() -> str:
        return await render_template_string("{{ SignOut(federated=True) }}")

    client = app.test_client()
    response = await client.get("/out")
    html = await response.get_data(as_text=True)
    token = re.search(r'name="csrfToken" value="([0-9a-f]{64})"', html)
    assert token is not None
    assert 'name="callbackUrl" value="/bye"' in html
    assert 'name="federated"' not in html
    assert any(c.startswith("authjs.csrf-token=") for c in response.headers.getlist("Set-Cookie"))
    both = await (await client.get("/out-of-both")).get_data(as_text=True)
    assert '<input type="hidden" name="federated" value="1">' in both
    await sign_in(client)
    done = await client.post("/auth/signout", form={"csrfToken": token.group(1)})
    assert done.status_code == 302


APP_PAGE = """<!doctype html><html {{ authui_html_attrs() }}><head>
{% for href in authui_stylesheets() %}<link rel="stylesheet" href="{{ href }}">{% endfor %}
</head><body class="authui-body">
<header>{{ SignIn(inline=True) }}</header><main>{{ SignIn() }}</main></body></html>"""


async def test_an_app_page_gets_the_theme_of_the_auth_pages(tmp_path: Path) -> None:
    theme = Theme(pack="terminal", color_scheme="dark", brand_color="#0b7285")
    app, _ = build_app(tmp_path, make_config(theme=theme))

    @app.get("/app-page")
    async def app_page() -> str:
        return await render_template_string(APP_PAGE)

    client = app.test_client()
    html = await (await client.get("/app-page")).get_data(as_text=True)
    auth_page = await (await client.get("/auth/signin")).get_data(as_text=True)
    assert '<html lang="en" dir="ltr" class="authui" data-color-scheme="dark">' in html
    assert '<html lang="en" dir="ltr" class="authui" data-color-scheme="dark">' in auth_page
    arabic = {"Accept-Language": "ar-EG"}  # the app's page speaks as the auth pages would
    in_arabic = await (await client.get("/app-page", headers=arabic)).get_data(as_text=True)
    assert '<html lang="ar" dir="rtl" class="authui"' in in_arabic
    assert "تسجيل الدخول" in in_arabic  # the SignIn button
    links = re.findall(r'<link rel="stylesheet" href="([^"]+)">', html)
    assert links == re.findall(r'<link rel="stylesheet" href="([^"]+)">', auth_page)
    assert [link.split("/")[-1].split(".")[0] for link in links] == ["layout", "terminal", "theme"]
    theme_css = await (await client.get(links[-1])).get_data(as_text=True)
    assert "--authui-brand: #0b7285;" in theme_css
    header, main = html.split("<main>")
    assert '<span class="authui-signin-snippet authui-inline"><a class="authui-button' in header
    assert "authui-inline" not in main


LAYOUT_PAGE = """{% extends "authui/layouts/app.html" %}
{% block title %}Dashboard{% endblock %}
{% block header %}<strong>Acme</strong>{{ SignIn(inline=True) }}{% endblock %}
{% block content %}<h1>Dashboard</h1>{% endblock %}"""


@pytest.mark.parametrize(("pack", "window"), [("default", False), ("terminal", True)])
async def test_an_app_page_extends_the_pack_s_layout(
    tmp_path: Path, pack: str, window: bool
) -> None:
    app, _ = build_app(tmp_path, make_config(theme=Theme(pack=pack)))

    @app.get("/dashboard-page")
    async def dashboard_page() -> str:
        return await render_template_string(LAYOUT_PAGE)

    html = await (await app.test_client().get("/dashboard-page")).get_data(as_text=True)
    assert html.startswith("<!DOCTYPE html>")
    assert '<html lang="en" dir="ltr" class="authui" data-color-scheme="auto">' in html
    assert "<title>Dashboard</title>" in html
    assert f'href="/auth/_static/{pack}.' in html
    assert '<body class="authui-body authui-app">' in html
    header = html.split('<header class="authui-app-header">')[1].split("</header>")[0]
    assert "<strong>Acme</strong>" in header
    assert "authui-inline" in header
    assert "<h1>Dashboard</h1>" in html.split('<main class="authui-app-main">')[1]
    assert ('data-authui-layout="terminal"' in html) is window
    if window:
        assert '<span class="authui-term-title">Dashboard</span>' in html


async def test_the_app_s_own_layout_file_wins(tmp_path: Path) -> None:
    (tmp_path / "authui" / "layouts").mkdir(parents=True)
    (tmp_path / "authui" / "layouts" / "app.html").write_text(
        '{% extends "authui-base/layouts/app.html" %}'
        '{% block head %}<meta name="mine" content="1">{% endblock %}'
    )
    app, _ = build_app(tmp_path, make_config())

    @app.get("/mine")
    async def mine() -> str:
        return await render_template_string(LAYOUT_PAGE)

    html = await (await app.test_client().get("/mine")).get_data(as_text=True)
    assert '<meta name="mine" content="1">' in html
    assert "<h1>Dashboard</h1>" in html


async def test_a_sign_in_button_for_an_unknown_provider_fails_naming_the_known_ones(
    tmp_path: Path,
) -> None:
    app, _ = build_app(tmp_path, make_config())

    @app.get("/typo")
    async def typo() -> str:
        return await render_template_string("{{ SignIn('gihtub') }}")

    async with app.test_request_context("/typo"):
        with pytest.raises(ValueError, match=r"SignIn\('gihtub'\).*configured ones: credentials"):
            await typo()


async def test_server_side_sign_in_sign_out_and_update(app: Quart) -> None:
    client = app.test_client()
    refused = await client.post("/login", form={"u": "ada", "p": "nope"})
    assert (refused.status_code, await refused.get_data(as_text=True)) == (
        401,
        "refused: credentials",
    )
    response = await client.post("/login", form={"u": "ada", "p": "correct horse"})
    assert (response.status_code, response.headers["Location"]) == (302, "http://localhost/private")
    renamed = await client.post("/rename", form={"name": "Countess"})
    assert (await renamed.get_json())["user"]["name"] == "Countess"
    assert "Countess" in await (await client.get("/private")).get_data(as_text=True)
    out = await client.post("/logout")
    assert out.status_code == 302
    assert (await client.get("/private", headers=BROWSER)).status_code == 302


async def test_lazy_config_per_request(tmp_path: Path) -> None:
    plain = make_config(theme=Theme(pack="base"))
    branded = make_config(theme=Theme(pack="base", brand_color="#ff0066"))

    def pick(req: Any) -> AuthConfig:
        return branded if req.headers.get("X-Tenant") == "b" else plain

    app, _ = build_app(tmp_path, pick, base_path="/auth")
    client = app.test_client()
    assert "/_static/theme." not in await (await client.get("/auth/signin")).get_data(as_text=True)
    page = await (await client.get("/auth/signin", headers={"X-Tenant": "b"})).get_data(
        as_text=True
    )
    (theme,) = re.findall(r'href="(/auth/_static/theme\.[^"]+)"', page)
    colours = await (await client.get(theme, headers={"X-Tenant": "b"})).get_data(as_text=True)
    assert "--authui-brand: #ff0066" in colours


async def test_app_template_overrides_a_page(tmp_path: Path) -> None:
    (tmp_path / "authui").mkdir()
    (tmp_path / "authui" / "signout.html").write_text(
        '{% extends "authui-base/signout.html" %}{% block content %}<p id="mine">Leaving?</p>'
        "{{ super() }}{% endblock %}"
    )
    app, _ = build_app(tmp_path, make_config())
    html = await (await app.test_client().get("/auth/signout")).get_data(as_text=True)
    assert '<p id="mine">Leaving?</p>' in html
    assert 'name="csrfToken"' in html


async def test_custom_pages_redirect(tmp_path: Path) -> None:
    app, _ = build_app(tmp_path, make_config(pages=Pages(sign_in="/login-page")))
    client = app.test_client()
    response = await client.get("/private", headers=BROWSER)
    assert response.headers["Location"] == "/login-page?callbackUrl=%2Fprivate"
    page = await client.get("/auth/signin?callbackUrl=%2Fx")
    assert page.headers["Location"] == "/login-page?callbackUrl=http%3A%2F%2Flocalhost%2Fx"


async def test_custom_base_path(tmp_path: Path) -> None:
    app, _ = build_app(tmp_path, make_config(base_path="/api/auth"))
    client = app.test_client()
    assert (await client.get("/api/auth/session")).status_code == 200
    assert (
        (await client.get("/private", headers=BROWSER))
        .headers["Location"]
        .startswith("/api/auth/signin?")
    )


def test_missing_secret_stops_the_app_at_start_up(tmp_path: Path) -> None:
    with pytest.raises(MissingSecret):
        build_app(tmp_path, AuthConfig(providers=[CREDENTIALS], trust_host=True))


async def test_state_lives_in_app_extensions(tmp_path: Path) -> None:
    config = make_config()
    shared = AuthUI(config=config)
    first, second = Quart("first"), Quart("second", static_folder=None)
    shared.init_app(first)
    shared.init_app(second)
    assert first.extensions["authui"] is not second.extensions["authui"]
    assert not any(isinstance(v, Quart) for v in vars(shared).values())


async def test_internal_calls_log_no_warnings_and_set_only_session_cookies(
    app: Quart, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    client = app.test_client()
    await sign_in(client)
    response = await client.get("/private")
    assert response.headers.getlist("Set-Cookie") == []  # a fresh session is not re-issued
    app, _ = build_app(tmp_path, make_config(session=SessionOptions(update_age=0)))
    client = app.test_client()
    await sign_in(client)
    response = await client.get("/private")
    names = [c.split("=", 1)[0] for c in response.headers.getlist("Set-Cookie")]
    assert names == ["authjs.session-token"]
    assert "csrf-disabled" not in caplog.text


async def test_static_helper_and_sign_out_label(tmp_path: Path) -> None:
    app, _ = build_app(tmp_path, make_config())

    @app.get("/assets")
    async def assets() -> str:
        return await render_template_string(
            '<script src="{{ authui_static("authui.js") }}"></script>{{ SignOut(label="Leave") }}'
        )

    client = app.test_client()
    html = await (await client.get("/assets")).get_data(as_text=True)
    source = re.search(r'src="(/auth/_static/authui\.[0-9a-f]{10}\.js)"', html)
    assert source is not None
    script = await client.get(source.group(1))
    assert script.status_code == 200
    assert "authui" in await script.get_data(as_text=True)
    assert ">Leave</button>" in html


def test_untrusted_host_stops_the_app_at_start_up(tmp_path: Path) -> None:
    from authui.errors import UntrustedHost

    with pytest.raises(UntrustedHost):
        build_app(tmp_path, AuthConfig(providers=[CREDENTIALS], secret="s" * 40, trust_host=False))


async def test_page_overrides_come_through_the_app_s_own_jinja_loader(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An override in a blueprint's template folder is found, and uses the app's filter
    and global, which the pack's environment alone does not know; the app's
    ``EXPLAIN_TEMPLATE_LOADING`` explains its lookup."""
    folder = tmp_path / "blueprint" / "authui"
    folder.mkdir(parents=True)
    (folder / "signout.html").write_text(
        '{% extends "authui-base/signout.html" %}'
        "{% block content %}{{ super() }}"
        '<p id="app-note">{{ site_name | shout }}</p>{% endblock %}'
    )
    app, _ = build_app(tmp_path, make_config())
    app.register_blueprint(Blueprint("pages", __name__, template_folder=str(folder.parent)))
    app.add_template_filter(lambda text: text.upper() + "!", "shout")  # added after init_app
    app.jinja_env.globals["site_name"] = "Example"
    app.config["EXPLAIN_TEMPLATE_LOADING"] = True
    with caplog.at_level(logging.INFO, logger=app.logger.name):
        page = await app.test_client().get("/auth/signout")
    assert page.status_code == 200
    assert '<p id="app-note">EXAMPLE!</p>' in await page.get_data(as_text=True)
    assert "Locating template 'authui/signout.html'" in caplog.text
