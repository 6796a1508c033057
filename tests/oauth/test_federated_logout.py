"""Federated sign-out (OpenID Connect RP-Initiated Logout 1.0) against a stand-in provider:
the sealed cookie a sign-in keeps, the redirect to the provider's end_session endpoint, the
ordinary sign-out whenever that cannot be done, the return through ``/signout/<id>``, the
sign-out page, and the integrations' server-side ``sign_out(federated=True)``."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx
import pytest
from quart import Quart, Response
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response as StarletteResponse
from starlette.routing import Mount, Route

from authui import OIDC, SessionOptions, validate_config
from authui.errors import InvalidProvider
from authui.jwt import decode, encode
from authui.oauth.discovery import DiscoveryError
from authui.options import resolve
from authui.providers.keycloak import Keycloak
from authui.providers.oauth import OAuth2, OAuthProvider
from authui.providers.registry import providers_from_env
from authui.quart import AuthUI
from authui.starlette import AuthApp
from authui.starlette import sign_out as starlette_sign_out
from authui.testing import AuthClient
from tests.conftest import SECRET, make_config
from tests.oauth.standin import APP, CLIENT_ID, CLIENT_SECRET, OIDCStandIn, sign_in_through

ISSUER = "https://idp.example.com"
END_SESSION = f"{ISSUER}/session/end"
CLAIMS = {"sub": "ada", "email": "ada@example.com", "name": "Ada", "sid": "idp-session-1"}
FEDERATED = "authui.federated"
STATE = "authui.logout-state"
RETURN = f"{APP}/auth/signout/idp"


def idp(**kwargs: Any) -> OIDCStandIn:
    discovery = kwargs.pop("discovery", {"end_session_endpoint": END_SESSION})
    return OIDCStandIn(ISSUER, claims=kwargs.pop("claims", CLAIMS), discovery=discovery, **kwargs)


def oidc(federated_logout: bool = True, **settings: Any) -> OAuthProvider:
    return OIDC(
        id="idp", name="Example IdP", issuer=ISSUER, federated_logout=federated_logout, **settings
    )


def stood_in(service: OIDCStandIn) -> OAuthProvider:
    return dataclasses.replace(
        oidc(), custom_fetch=service, client_id=CLIENT_ID, client_secret=CLIENT_SECRET
    )


async def signed_in(service: OIDCStandIn | None = None, **settings: Any) -> tuple[Any, AuthClient]:
    """A browser signed in through the stand-in (with ``federated_logout`` unless
    ``provider=`` says otherwise); the sign-in's outcome and the client."""
    service = service or idp()
    provider = settings.pop("provider", None) or oidc()
    outcome = await sign_in_through(provider, service, **settings)
    assert outcome.session
    assert outcome.session["user"]["email"] == "ada@example.com"
    return outcome, outcome.client


def opened(client: AuthClient, name: str = FEDERATED) -> dict[str, Any]:
    """The content of one of the client's sealed cookies."""
    sealed = decode(token=client.cookies[name], secret=SECRET, salt=name)
    assert sealed is not None
    return dict(sealed)


def set_cookie(response: Any, name: str) -> str:
    (header,) = [h for h in response.header_all("set-cookie") if h.startswith(f"{name}=")]
    return str(header)


async def sign_out(
    client: AuthClient, *, federated: bool = True, headers: dict[str, str] | None = None
) -> Any:
    form = {"csrfToken": await client.csrf_token(), "callbackUrl": f"{APP}/bye"}
    if federated:
        form["federated"] = "1"
    return await client.post("signout", form=form, headers=headers)


def query(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query))


def logged(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(record.getMessage() for record in caplog.records)


async def assert_signed_out_here(client: AuthClient) -> None:
    assert (await client.get("session")).data() is None
    assert FEDERATED not in client.cookies


# --- the provider setting ---------------------------------------------------------------------


def test_federated_logout_is_off_by_default_and_every_factory_takes_it() -> None:
    assert OIDC(id="idp", issuer=ISSUER).federated_logout is False
    assert oidc().federated_logout is True
    assert Keycloak(issuer=ISSUER, federated_logout=True).federated_logout is True
    assert "federated_logout" in (OAuthProvider.__doc__ or "")


def test_the_generic_oidc_provider_reads_it_from_the_environment() -> None:
    env = {"AUTH_OIDC_ID": "client", "AUTH_OIDC_ISSUER": ISSUER}
    [plain] = providers_from_env(env)
    [federated] = providers_from_env({**env, "AUTH_OIDC_FEDERATED_LOGOUT": "true"})
    assert isinstance(plain, OAuthProvider)
    assert isinstance(federated, OAuthProvider)
    assert (plain.federated_logout, federated.federated_logout) == (False, True)


def test_a_plain_oauth_provider_needs_an_issuer_for_it() -> None:
    provider = OAuth2(
        id="svc",
        client_id="c",
        client_secret="s",
        authorization="https://svc.example/authorize",
        token="https://svc.example/token",
        userinfo="https://svc.example/me",
        federated_logout=True,
    )
    with pytest.raises(InvalidProvider, match="federated_logout but no issuer"):
        validate_config(make_config(providers=[provider]))


# --- the cookie a sign-in keeps ---------------------------------------------------------------


async def test_a_sign_in_keeps_the_provider_the_id_token_and_its_sid_sealed() -> None:
    outcome, client = await signed_in()

    sealed = opened(client)
    assert sealed["provider"] == "idp"
    assert sealed["value"] == {"id_token": outcome.account["id_token"], "sid": "idp-session-1"}
    header = set_cookie(outcome.callback, FEDERATED)
    assert header.endswith("; Max-Age=2592000; Path=/; HttpOnly; SameSite=Lax")  # 30 days
    assert outcome.account["id_token"] not in header  # encrypted, not just signed


async def test_the_cookie_lives_as_long_as_a_session_and_is_secure_on_https() -> None:
    service = idp()
    provider = dataclasses.replace(
        oidc(), custom_fetch=service, client_id=CLIENT_ID, client_secret=CLIENT_SECRET
    )
    config = make_config(providers=[provider], session=SessionOptions(max_age=3600))
    client = AuthClient(config, origin="https://app.example.com")
    form = {"csrfToken": await client.csrf_token()}
    started = await client.post("signin/idp", form=form)
    service.authorization_params = query(started.header("location") or "")
    back = {"code": "c", "state": service.authorization_params["state"]}
    callback = await client.get(f"callback/idp?{urlencode(back)}")

    header = set_cookie(callback, f"__Secure-{FEDERATED}")
    assert header.endswith("; Max-Age=3600; Path=/; HttpOnly; Secure; SameSite=Lax")


async def test_an_id_token_without_sid_keeps_no_sid() -> None:
    _, client = await signed_in(idp(claims={k: v for k, v in CLAIMS.items() if k != "sid"}))
    assert set(opened(client)["value"]) == {"id_token"}


async def test_no_cookie_for_a_provider_without_federated_logout() -> None:
    outcome, client = await signed_in(provider=oidc(federated_logout=False))
    assert FEDERATED not in client.cookies
    assert not [h for h in outcome.callback.header_all("set-cookie") if FEDERATED in h]


async def test_no_cookie_for_a_credentials_sign_in() -> None:
    client = AuthClient(make_config())
    signed = await client.sign_in_with_credentials(username="ada", password="correct horse")
    assert signed.status == 302
    assert FEDERATED not in client.cookies


async def test_an_id_token_too_large_for_a_cookie_is_left_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    big = {**CLAIMS, "groups": [f"group-{i:04d}" for i in range(400)]}
    outcome, client = await signed_in(idp(claims=big), debug=True)

    assert len(outcome.account["id_token"]) > 4096
    assert opened(client)["value"] == {"sid": "idp-session-1"}
    assert len(set_cookie(outcome.callback, FEDERATED)) <= 4096
    assert "too large to keep for the federated sign-out" in logged(caplog)
    answer = await sign_out(client)
    sent = query(answer.header("location") or "")
    assert "id_token_hint" not in sent
    assert sent["client_id"] == CLIENT_ID


# --- the sign-out -----------------------------------------------------------------------------


async def test_a_federated_sign_out_ends_the_session_then_goes_to_the_end_session_endpoint() -> (
    None
):
    outcome, client = await signed_in()

    answer = await sign_out(client)

    assert answer.status == 302
    location = answer.header("location") or ""
    assert location.startswith(f"{END_SESSION}?")
    sent = query(location)
    assert set(sent) == {"id_token_hint", "client_id", "post_logout_redirect_uri", "state"}
    assert sent["id_token_hint"] == outcome.account["id_token"]
    assert sent["client_id"] == CLIENT_ID
    assert sent["post_logout_redirect_uri"] == RETURN
    assert len(sent["state"]) >= 43
    state = opened(client, STATE)
    assert (state["provider"], state["value"]) == ("idp", sent["state"])
    assert set_cookie(answer, STATE).endswith("; Max-Age=900; Path=/; HttpOnly; SameSite=Lax")
    await assert_signed_out_here(client)


async def test_each_sign_out_has_its_own_state() -> None:
    states = []
    for _ in range(2):
        _, client = await signed_in()
        states.append(query((await sign_out(client)).header("location") or "")["state"])
    assert states[0] != states[1]


async def test_the_end_session_endpoints_own_query_is_kept() -> None:
    service = idp(discovery={"end_session_endpoint": f"{END_SESSION}?tenant=acme"})
    _, client = await signed_in(service)
    sent = query((await sign_out(client)).header("location") or "")
    assert sent["tenant"] == "acme"
    assert sent["post_logout_redirect_uri"] == RETURN


async def test_a_json_client_gets_the_end_session_url() -> None:
    _, client = await signed_in()

    answer = await sign_out(client, headers={"X-Auth-Return-Redirect": "1"})

    assert answer.status == 200
    url = answer.data()["url"]
    assert url.startswith(f"{END_SESSION}?")
    assert query(url)["state"] == opened(client, STATE)["value"]
    await assert_signed_out_here(client)


async def test_federated_is_read_from_a_json_body() -> None:
    _, client = await signed_in()
    body = {"csrfToken": await client.csrf_token(), "federated": True}
    answer = await client.post("signout", json_body=body)
    assert (answer.header("location") or "").startswith(f"{END_SESSION}?")


async def test_a_sign_out_that_does_not_ask_is_ordinary_and_forgets_the_sign_in() -> None:
    _, client = await signed_in()

    answer = await sign_out(client, federated=False)

    assert answer.header("location") == f"{APP}/bye"
    assert STATE not in client.cookies
    await assert_signed_out_here(client)


# --- the ordinary sign-out when a federated one cannot be done ---------------------------------


async def test_without_the_cookie_the_sign_out_is_ordinary(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = AuthClient(make_config(debug=True))
    await client.sign_in_with_credentials(username="ada", password="correct horse")

    answer = await sign_out(client)

    assert answer.header("location") == f"{APP}/bye"
    assert (await client.get("session")).data() is None
    assert "without a federated sign-in" in logged(caplog)


async def test_without_an_end_session_endpoint_the_sign_out_is_ordinary(
    caplog: pytest.LogCaptureFixture,
) -> None:
    _, client = await signed_in(idp(discovery={}))

    answer = await sign_out(client)

    assert answer.header("location") == f"{APP}/bye"
    assert STATE not in client.cookies
    await assert_signed_out_here(client)
    assert "[federated-sign-out-failed]" in logged(caplog)
    assert "has no end_session_endpoint" in logged(caplog)


@pytest.mark.parametrize(
    "failure", [DiscoveryError("Discovery failed: 503"), RuntimeError("a bug")], ids=repr
)
async def test_when_discovery_fails_the_sign_out_is_ordinary(
    failure: Exception, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, client = await signed_in()

    async def discover(provider: OAuthProvider) -> dict[str, Any]:
        raise failure

    monkeypatch.setattr(resolve(client.config).discovery, "discover", discover)
    answer = await sign_out(client)

    assert answer.status == 302
    assert answer.header("location") == f"{APP}/bye"
    await assert_signed_out_here(client)
    assert "[federated-sign-out-failed]" in logged(caplog)
    assert str(failure) in logged(caplog)


async def test_a_failing_discovery_document_request_gives_the_ordinary_sign_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The real request fails: the sign-out is served by another process than the sign-in
    (another configuration, nothing cached), and the provider is down."""
    service = idp()
    _, signed = await signed_in(service)
    discovery_url = f"GET {ISSUER}/.well-known/openid-configuration"
    service.routes[discovery_url] = httpx.Response(503, text="down")
    client = AuthClient(make_config(providers=[stood_in(service)]), cookies=signed.cookies)

    answer = await sign_out(client)

    assert answer.header("location") == f"{APP}/bye"
    assert "discovery document cannot be had" in logged(caplog)


async def test_a_forged_cookie_is_ignored(caplog: pytest.LogCaptureFixture) -> None:
    client = AuthClient(
        make_config(providers=[oidc(client_id=CLIENT_ID, client_secret=CLIENT_SECRET)], debug=True)
    )
    client.cookies[FEDERATED] = "forged.value.of.some.kind"

    answer = await sign_out(client)

    assert answer.header("location") == f"{APP}/bye"
    assert FEDERATED not in client.cookies  # deleted all the same
    assert f"The {FEDERATED} cookie cannot be opened: ignored" in logged(caplog)


async def test_a_cookie_sealed_with_another_secret_is_ignored() -> None:
    _, client = await signed_in()
    content = opened(client)
    client.cookies[FEDERATED] = encode(
        token={"value": content["value"], "provider": "idp"},
        secret="another-secret-that-is-long-enough-0123456789",
        salt=FEDERATED,
    )
    assert "Example IdP" not in (await client.get("signout")).text

    answer = await sign_out(client)

    assert answer.header("location") == f"{APP}/bye"


async def test_a_cookie_naming_a_provider_without_federated_logout_is_ignored() -> None:
    service = idp()
    plain = dataclasses.replace(stood_in(service), id="plain", federated_logout=False)
    client = AuthClient(make_config(providers=[stood_in(service), plain]), origin=APP)
    _, client = await signed_in(service, client=client)
    content = opened(client)
    client.cookies[FEDERATED] = encode(
        token={"value": content["value"], "provider": "plain"}, secret=SECRET, salt=FEDERATED
    )

    answer = await sign_out(client)

    assert answer.header("location") == f"{APP}/bye"


# --- the return from the provider -------------------------------------------------------------


async def federated_sign_out() -> tuple[AuthClient, str]:
    """A browser signed out federatedly, on its way back; and the state it was given."""
    _, client = await signed_in()
    answer = await sign_out(client)
    return client, query(answer.header("location") or "")["state"]


async def test_the_return_checks_the_state_and_goes_to_the_callback_url() -> None:
    client, state = await federated_sign_out()

    back = await client.get(f"signout/idp?{urlencode({'state': state})}")

    assert back.status == 302
    assert back.header("location") == f"{APP}/bye"
    assert STATE not in client.cookies


async def test_a_replayed_return_is_refused() -> None:
    client, state = await federated_sign_out()
    assert (await client.get(f"signout/idp?state={state}")).status == 302

    again = await client.get(f"signout/idp?state={state}", headers={"Accept": "text/html"})

    assert again.status == 400
    assert again.header("location") is None


@pytest.mark.parametrize(
    "path",
    [
        pytest.param("signout/idp", id="no state"),
        pytest.param("signout/idp?state=", id="empty state"),
        pytest.param("signout/idp?state=guessed", id="wrong state"),
    ],
)
async def test_a_return_without_its_state_is_a_bad_request(
    path: str, caplog: pytest.LogCaptureFixture
) -> None:
    client, state = await federated_sign_out()

    refused = await client.get(path, headers={"Accept": "text/html"})

    assert refused.status == 400
    assert refused.header("location") is None
    assert "Bad request" in refused.text
    assert STATE not in client.cookies  # spent: the right state is no use now either
    assert (await client.get(f"signout/idp?state={state}")).status == 400
    assert "BadRequest" in logged(caplog)


async def test_a_return_for_another_provider_is_a_bad_request() -> None:
    service = idp()
    other = dataclasses.replace(stood_in(service), id="other")
    client = AuthClient(make_config(providers=[stood_in(service), other]), origin=APP)
    _, client = await signed_in(service, client=client)
    state = query((await sign_out(client)).header("location") or "")["state"]

    assert (await client.get(f"signout/other?state={state}")).status == 400


async def test_a_return_without_any_sign_out_is_a_bad_request() -> None:
    client = AuthClient(
        make_config(providers=[oidc(client_id=CLIENT_ID, client_secret=CLIENT_SECRET)])
    )
    refused = await client.get("signout/idp?state=anything", headers={"Accept": "text/html"})
    assert refused.status == 400
    assert "Bad request" in refused.text


async def test_a_json_client_is_told_the_return_was_bad() -> None:
    client, _ = await federated_sign_out()
    refused = await client.get("signout/idp?state=wrong", headers={"X-Auth-Return-Redirect": "1"})
    assert refused.status == 400
    assert refused.data() == {"url": f"{APP}/auth/error?error=BadRequest"}


async def test_the_return_goes_only_to_a_same_origin_callback_url() -> None:
    client, state = await federated_sign_out()
    back = await client.get(
        f"signout/idp?{urlencode({'state': state, 'callbackUrl': 'https://evil.example/'})}"
    )
    assert back.header("location") == APP


async def test_a_post_to_signout_with_a_provider_is_refused() -> None:
    _, client = await signed_in()
    answer = await client.post(
        "signout/idp", form={"csrfToken": await client.csrf_token(), "federated": "1"}
    )
    assert answer.status == 400
    assert (await client.get("session")).data() is not None


# --- the sign-out page ------------------------------------------------------------------------


async def test_the_sign_out_page_offers_the_federated_sign_out() -> None:
    _, client = await signed_in()

    page = (await client.get("signout")).text

    assert "You will also be signed out of Example IdP." in page
    assert '<input type="hidden" name="federated" value="1">' in page


async def test_the_sign_out_page_is_plain_without_a_federated_sign_in() -> None:
    _, client = await signed_in(provider=oidc(federated_logout=False))
    page = (await client.get("signout")).text
    assert "also be signed out" not in page
    assert 'name="federated"' not in page


async def test_the_provider_name_on_the_sign_out_page_is_escaped() -> None:
    provider = dataclasses.replace(oidc(), name="<b>IdP</b>")
    _, client = await signed_in(provider=provider)
    page = (await client.get("signout")).text
    assert "You will also be signed out of &lt;b&gt;IdP&lt;/b&gt;." in page


# --- the integrations' server-side sign_out ---------------------------------------------------


async def come_back(client: Any, service: OIDCStandIn, location: str) -> None:
    """The stand-in "redirects back" to the callback of the sign-in that went to
    ``location``."""
    service.authorization_params = query(location)
    back = {"code": "c", "state": service.authorization_params["state"]}
    answer = await client.get(f"/auth/callback/idp?{urlencode(back)}")
    assert answer.status_code == 302


async def quart_sign_in(client: Any, service: OIDCStandIn) -> None:
    token = (await (await client.get("/auth/csrf")).get_json())["csrfToken"]
    started = await client.post("/auth/signin/idp", form={"csrfToken": token})
    await come_back(client, service, started.headers["Location"])


async def httpx_sign_in(client: httpx.AsyncClient, service: OIDCStandIn) -> None:
    token = (await client.get("/auth/csrf")).json()["csrfToken"]
    started = await client.post("/auth/signin/idp", data={"csrfToken": token})
    await come_back(client, service, started.headers["Location"])


async def test_quart_sign_out_federated(tmp_path: Path) -> None:
    service = idp()
    app = Quart(__name__, template_folder=str(tmp_path))
    auth_ui = AuthUI(app, make_config(providers=[stood_in(service)]))

    @app.post("/logout")
    async def logout() -> Response:
        return await auth_ui.sign_out(redirect_to="/bye", federated=True)

    @app.post("/logout-here")
    async def logout_here() -> Response:
        return await auth_ui.sign_out(redirect_to="/bye")

    client = app.test_client()
    await quart_sign_in(client, service)
    answer = await client.post("/logout")

    assert answer.status_code == 302
    sent = query(answer.headers["Location"])
    assert answer.headers["Location"].startswith(f"{END_SESSION}?")
    assert sent["post_logout_redirect_uri"] == "http://localhost/auth/signout/idp"
    back = await client.get(f"/auth/signout/idp?{urlencode({'state': sent['state']})}")
    assert back.headers["Location"] == "http://localhost/bye"

    await quart_sign_in(client, service)
    plain = await client.post("/logout-here")
    assert plain.headers["Location"] == "http://localhost/bye"


async def test_starlette_sign_out_federated() -> None:
    service = idp()
    config = make_config(providers=[stood_in(service)])

    async def logout(request: Request) -> StarletteResponse:
        return await starlette_sign_out(request, config=config, redirect_to="/bye", federated=True)

    app = Starlette(
        routes=[Route("/logout", logout, methods=["POST"]), Mount("/auth", AuthApp(config))]
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        await httpx_sign_in(client, service)
        answer = await client.post("/logout")

        assert answer.status_code == 302
        location = answer.headers["Location"]
        assert location.startswith(f"{END_SESSION}?")
        assert query(location)["post_logout_redirect_uri"] == "http://testserver/auth/signout/idp"
        back = await client.get(
            f"/auth/signout/idp?{urlencode({'state': query(location)['state']})}"
        )
        assert back.headers["Location"] == "http://testserver/bye"
        assert (await client.get("/auth/session")).json() is None
