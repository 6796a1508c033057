"""Configuring OAuth providers: the factories and overrides, the registry of built-ins,
the environment variables, the configuration errors, and the redirect proxy."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest

from authui import AuthConfig, SessionOptions, set_env_defaults, validate_config
from authui.actions.views import MIN_CONTRAST, button_text, contrast
from authui.checks import assert_config
from authui.errors import InvalidEndpoints, InvalidProvider, MissingAdapterMethods
from authui.providers.oauth import OIDC, Endpoint, OAuth2, OAuthProvider, with_overrides
from authui.providers.registry import built_in, provider_ids, providers_from_env
from authui.testing import AuthClient
from tests.conftest import ENV, make_config
from tests.oauth.standin import APP, CLIENT_ID, OIDCStandIn, form_of

ISSUER = "https://idp.example.com"


def test_every_built_in_provider_has_its_id_and_a_docs_page() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs" / "providers"
    assert len(provider_ids()) == 93
    for provider_id in provider_ids():
        made = built_in(provider_id)
        assert isinstance(made, OAuthProvider)
        assert made.id == provider_id
        assert made.type in ("oauth", "oidc")
        assert (docs / f"{provider_id}.md").is_file(), f"no docs/providers/{provider_id}.md"


def test_unknown_built_in_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        built_in("myspace")


def test_overrides_merge_endpoint_params_and_replace_the_rest() -> None:
    base = {
        "id": "svc",
        "name": "Service",
        "authorization": Endpoint(url="https://svc/a", params={"scope": "a", "prompt": "x"}),
        "checks": ("pkce", "state"),
    }
    merged = with_overrides(
        base, {"authorization": {"params": {"scope": "b"}}, "checks": ["nonce"]}
    )
    assert merged.authorization.url == "https://svc/a"
    assert merged.authorization.params == {"scope": "b", "prompt": "x"}
    assert merged.checks == ("nonce",)  # lists are replaced, not merged index by index
    replaced = with_overrides(base, {"authorization": "https://svc/other"})
    assert replaced.authorization == Endpoint(url="https://svc/other")
    with pytest.raises(TypeError, match="clientid"):
        with_overrides(base, {"clientid": "typo"})


def test_generic_factories() -> None:
    oidc = OIDC(id="corp", issuer=ISSUER)
    assert oidc.checks == ("pkce", "state", "nonce")
    assert oidc.authorization.params == {"scope": "openid profile email"}
    plain = OAuth2(id="svc", authorization="https://svc/a", token="https://svc/t", userinfo="u")
    assert plain.authorization.params == {}  # no openid scope for a plain OAuth provider
    assert plain.checks == ("pkce",)


def test_environment_fills_client_id_secret_and_issuer() -> None:
    env = {**ENV, "AUTH_MY_IDP_ID": "id", "AUTH_MY_IDP_SECRET": "s", "AUTH_MY_IDP_ISSUER": ISSUER}
    config = set_env_defaults(env, AuthConfig(providers=[OIDC(id="my-idp")]))
    [provider] = config.providers
    assert isinstance(provider, OAuthProvider)
    assert (provider.client_id, provider.client_secret, provider.issuer) == ("id", "s", ISSUER)
    explicit = set_env_defaults(env, AuthConfig(providers=[OIDC(id="my-idp", client_id="mine")]))
    assert dataclasses.asdict(explicit.providers[0])["client_id"] == "mine"


def test_providers_from_env() -> None:
    env = {
        "AUTH_GITHUB_ID": "gh",
        "AUTH_OIDC_ID": "client",
        "AUTH_OIDC_ISSUER": ISSUER,
        "AUTH_GOOGLE_SECRET": "no id, so not enabled",
    }
    found = {p.id: p for p in providers_from_env(env)}
    assert set(found) == {"github", "oidc"}
    oidc = found["oidc"]
    assert isinstance(oidc, OAuthProvider)
    assert oidc.client_auth == "none"  # no AUTH_OIDC_SECRET: a public client with PKCE
    with_secret = providers_from_env({**env, "AUTH_OIDC_SECRET": "s"})[-1]
    assert isinstance(with_secret, OAuthProvider)
    assert with_secret.client_auth == "client_secret_basic"
    with pytest.raises(ValueError, match="AUTH_OIDC_CLIENT_AUTH"):
        providers_from_env({**env, "AUTH_OIDC_CLIENT_AUTH": "magic"})


NEEDS_MORE_THAN_ENV = {"netsuite": "userinfo"}
"""Built-ins the environment variables alone cannot complete, and what the check names."""


@pytest.mark.parametrize("provider_id", provider_ids())
def test_every_built_in_is_configured_by_its_environment_variables(provider_id: str) -> None:
    """``AUTH_<ID>_ID`` and ``_SECRET``, ``_ISSUER`` for the providers whose issuer may be
    one's own (a server, a tenant, a test environment) and ``_KEY`` for those with an API
    key make a configuration that starts, holding what they name."""
    name = provider_id.upper().replace("-", "_")
    shipped = built_in(provider_id)
    assert isinstance(shipped, OAuthProvider)
    own_issuer = shipped.issuer is None or shipped.default_issuer
    issuer = f"https://{provider_id}.example.com"
    env = {**ENV, f"AUTH_{name}_ID": "client-id", f"AUTH_{name}_SECRET": "client-secret"}
    if own_issuer and provider_id not in NEEDS_MORE_THAN_ENV:
        env[f"AUTH_{name}_ISSUER"] = issuer
    if hasattr(shipped, "api_key"):
        env[f"AUTH_{name}_KEY"] = "api-key"
    config = set_env_defaults(env, make_config(providers=providers_from_env(env)))
    [provider] = config.providers
    assert isinstance(provider, OAuthProvider)
    assert provider.id == provider_id
    assert (provider.client_id, provider.client_secret) == ("client-id", "client-secret")
    if provider_id in NEEDS_MORE_THAN_ENV:
        with pytest.raises(InvalidEndpoints, match=NEEDS_MORE_THAN_ENV[provider_id]):
            validate_config(config)
        return
    validate_config(config)
    assert provider.issuer == (issuer if own_issuer else shipped.issuer)
    if hasattr(shipped, "api_key"):
        assert getattr(provider, "api_key", None) == "api-key"


def test_duplicate_ids_name_both_providers() -> None:
    first = OIDC(id="sso", name="Corporate SSO", issuer=ISSUER, client_id="a", client_secret="s")
    second = OIDC(id="sso", name="Partner SSO", issuer=ISSUER, client_id="b", client_secret="s")
    check = assert_config(make_config(providers=[first, second]))
    [error] = check.errors
    assert isinstance(error, InvalidProvider)
    assert "Corporate SSO" in error.detail
    assert "Partner SSO" in error.detail


@pytest.mark.parametrize(
    ("provider", "error", "says"),
    [
        (OIDC(id="corp", issuer=ISSUER), InvalidProvider, "AUTH_CORP_ID"),
        (OIDC(id="corp", issuer=ISSUER, client_id="x"), InvalidProvider, "AUTH_CORP_SECRET"),
        (OIDC(id="corp", client_id="x", client_auth="none"), InvalidEndpoints, "AUTH_CORP_ISSUER"),
        (
            OAuth2(id="svc", client_id="x", client_secret="s", token="https://t"),
            InvalidEndpoints,
            "authorization",
        ),
        (
            OIDC(id="corp", issuer=ISSUER, client_id="x", client_auth="private_key_jwt"),
            InvalidProvider,
            "client_private_key",
        ),
    ],
)
def test_provider_configuration_errors_stop_the_app(
    provider: OAuthProvider, error: type[Exception], says: str
) -> None:
    with pytest.raises(error, match=says):
        validate_config(make_config(providers=[provider]))


async def test_redirect_proxy_forwards_the_callback_to_the_deployment() -> None:
    service = OIDCStandIn(ISSUER, claims={"sub": "u", "name": "Ada"})
    provider = OIDC(id="idp", issuer=ISSUER, client_id=CLIENT_ID, client_secret="s")
    provider = dataclasses.replace(provider, custom_fetch=service, checks=("pkce",))
    config: dict[str, Any] = {
        "providers": [provider],
        "redirect_proxy_url": "https://stable.example.com/auth",
    }
    preview = AuthClient(make_config(**config), origin=APP)
    stable = AuthClient(make_config(**config), origin="https://stable.example.com")
    started = await preview.post("signin/idp", form={"csrfToken": await preview.csrf_token()})
    params = dict(parse_qsl(urlsplit(started.header("location") or "").query))
    assert params["redirect_uri"] == "https://stable.example.com/auth/callback/idp"
    assert "state" in params  # added because of the proxy
    answer = {"code": "c1", "state": params["state"]}
    forwarded = await stable.get(f"callback/idp?{urlencode(answer)}")
    target = forwarded.header("location") or ""
    assert target.startswith(f"{APP}/auth/callback/idp?")
    assert dict(parse_qsl(urlsplit(target).query)) == answer
    service.authorization_params = params
    done = await preview.get(target.removeprefix(f"{APP}/auth/"))
    assert done.header("location") == APP
    assert (
        form_of(service.sent("POST", f"{ISSUER}/token"))["redirect_uri"] == params["redirect_uri"]
    )
    assert (await preview.get("session")).data()["user"]["name"] == "Ada"


def test_oauth_with_an_adapter_lacking_linking_methods_stops_the_app() -> None:
    class UsersOnly:
        async def get_user(self, user_id: str) -> None:
            return None

    provider = OIDC(id="corp", issuer=ISSUER, client_id="x", client_secret="s")
    config = make_config(
        providers=[provider], adapter=UsersOnly(), session=SessionOptions(strategy="jwt")
    )
    with pytest.raises(MissingAdapterMethods, match="OAuth sign-in") as raised:
        validate_config(config)
    assert "link_account" in raised.value.detail
    assert "get_user'" not in raised.value.detail


@pytest.mark.parametrize("provider_id", provider_ids())
def test_every_built_in_button_is_readable(provider_id: str) -> None:
    style = built_in(provider_id).style
    if style is None or style.brand_color is None:
        return  # the theme's own button colours, checked by the accessibility tests
    text = button_text(style.brand_color, style.text)
    assert text is not None
    ratio = contrast(style.brand_color, text)
    assert ratio is not None
    assert ratio >= MIN_CONTRAST


def test_a_brand_text_colour_that_reads_badly_is_replaced() -> None:
    assert button_text("#FC6D26", "#fff") == "#000000"  # GitLab orange with white text
    assert button_text("#24292f", "#fff") == "#fff"  # kept where it reads well
    assert button_text("var(--x)", "#fff") == "#fff"  # not hex: left as given
