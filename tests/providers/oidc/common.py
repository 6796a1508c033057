"""Checks shared by the built-in OpenID provider tests: what the authorization URL, the
token request and the signed-in account of one sign-in through a stand-in must be."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote_plus, urlsplit

import httpx

from authui import AuthConfig, set_env_defaults
from authui.http import Response
from authui.providers.oauth import OAuthProvider
from authui.testing import AuthClient
from tests.conftest import make_config
from tests.oauth.standin import (
    APP,
    CLIENT_ID,
    CLIENT_SECRET,
    OIDCStandIn,
    Outcome,
    canned,
    form_of,
)


def callback_url(provider_id: str) -> str:
    return f"{APP}/auth/callback/{provider_id}"


def canned_standin(provider_id: str, issuer: str, **kwargs: Any) -> OIDCStandIn:
    """A stand-in answering with ``canned/<id>/``'s discovery document, id_token claims
    and token response (``token_extra`` here is the whole token response, without the
    id_token); keyword arguments replace them, ``routes`` add to them."""
    settings: dict[str, Any] = {
        "claims": canned(f"{provider_id}/id_token.json"),
        "discovery": canned(f"{provider_id}/discovery.json"),
        "token_extra": canned(f"{provider_id}/token.json"),
        **kwargs,
    }
    token = dict(settings.pop("token_extra"))
    if "at_hash" in settings["claims"]:  # the recorded one hashes the recorded access token
        settings["claims"] = {**settings["claims"], "at_hash": at_hash(token["access_token"])}
    standin = OIDCStandIn(issuer, **settings)

    def answer(request: httpx.Request) -> dict[str, Any]:  # exactly the recorded fields
        return {**token, "id_token": standin.id_token()}

    key = f"POST {standin.discovery['token_endpoint']}"
    if key not in (settings.get("routes") or {}):
        standin.routes[key] = answer
    return standin


def at_hash(access_token: str) -> str:
    """The id_token's ``at_hash`` of an access token (RS256: half of its SHA-256)."""
    digest = hashlib.sha256(access_token.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest[:16]).rstrip(b"=").decode("ascii")


def s256(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def check_authorization(
    outcome: Outcome,
    standin: OIDCStandIn,
    provider: OAuthProvider,
    params: Mapping[str, str],
) -> None:
    """The user went to the discovered authorization endpoint with exactly ``params``
    besides ``response_type``, ``client_id``, ``redirect_uri`` and the checks' values."""
    url = urlsplit(outcome.authorization_url)
    assert f"{url.scheme}://{url.netloc}{url.path}" == standin.discovery["authorization_endpoint"]
    sent = dict(outcome.params)
    expected = {
        "response_type": "code",
        "client_id": CLIENT_ID,
        "redirect_uri": callback_url(provider.id),
        **params,
    }
    if "pkce" in provider.checks:
        assert sent.pop("code_challenge_method") == "S256"
        assert len(sent.pop("code_challenge")) == 43
    for check in ("state", "nonce"):
        if check in provider.checks:
            assert len(sent.pop(check)) >= 32
    assert sent == expected


def check_token_request(outcome: Outcome, standin: OIDCStandIn, provider: OAuthProvider) -> None:
    """The code went to the discovered token endpoint with the client authenticated as the
    provider says, and a PKCE verifier exactly when the provider uses PKCE."""
    request = standin.sent("POST", standin.discovery["token_endpoint"])
    form = form_of(request)
    assert form.pop("grant_type") == "authorization_code"
    assert form.pop("code") == "authorization-code-1"
    assert form.pop("redirect_uri") == callback_url(provider.id)
    if "pkce" in provider.checks:
        assert s256(form.pop("code_verifier")) == outcome.params["code_challenge"]
    if provider.client_auth == "client_secret_basic":
        pair = f"{quote_plus(CLIENT_ID)}:{quote_plus(CLIENT_SECRET)}"
        basic = base64.b64encode(pair.encode()).decode()
        assert request.headers["authorization"] == f"Basic {basic}"
    else:
        assert provider.client_auth == "client_secret_post"
        assert "authorization" not in request.headers
        assert form.pop("client_id") == CLIENT_ID
        assert form.pop("client_secret") == CLIENT_SECRET
    assert form == {}


def check_account(outcome: Outcome, provider: OAuthProvider, sub: str) -> dict[str, Any]:
    """The account is the id_token's ``sub`` at the provider, with the id_token, a bearer
    token and (when the service sent ``expires_in``) its expiry kept."""
    account = outcome.account
    assert account["provider"] == provider.id
    assert account["type"] == "oidc"
    assert account["providerAccountId"] == sub
    assert isinstance(account["id_token"], str)
    assert account["token_type"] == "bearer"
    expires_in = account.get("expires_in")
    if expires_in is None:
        assert "expires_at" not in account
    else:
        assert abs(account["expires_at"] - (time.time() + int(expires_in))) <= 5
    assert outcome.session["user"]["email"] == outcome.user.get("email")
    return account


async def sign_in_without_issuer(provider: OAuthProvider) -> Response:
    """``POST /signin/<id>`` for a provider whose issuer was never given (its client id
    and secret set)."""
    provider = dataclasses.replace(provider, client_id=CLIENT_ID, client_secret=CLIENT_SECRET)
    client = AuthClient(make_config(providers=[provider]), origin=APP)
    form = {"csrfToken": "unused", "callbackUrl": f"{APP}/dashboard"}
    return await client.post(f"signin/{provider.id}", form=form)


def check_configuration_error(response: Response, log: str, provider_id: str) -> None:
    """The configuration is refused as a whole, as Auth.js's ``assertConfig`` does: a 500
    with the generic configuration message (no traceback), the log naming the missing
    ``AUTH_<ID>_ISSUER``."""
    assert response.status == 500
    assert response.data() == {
        "message": "There was a problem with the server configuration. "
        "Check the server logs for more information."
    }
    assert "InvalidEndpoints" in log
    assert f"AUTH_{provider_id.upper().replace('-', '_')}_ISSUER" in log


def issuer_from_env(provider: OAuthProvider, issuer: str) -> OAuthProvider:
    """``provider`` after ``set_env_defaults`` with ``AUTH_<ID>_ISSUER=issuer``."""
    name = f"AUTH_{provider.id.upper().replace('-', '_')}_ISSUER"
    config = set_env_defaults({name: issuer}, AuthConfig(providers=[provider]))
    found = config.providers[0]
    assert isinstance(found, OAuthProvider)
    return found


def mapped(outcome: Outcome) -> dict[str, Any]:
    """The signed-in user without its id (authui's own, not the provider's)."""
    return {key: value for key, value in outcome.user.items() if key != "id"}


def location(response: Response) -> str:
    """Where a redirect goes."""
    assert response.status == 302, (response.status, response.body[:300])
    found = response.header("location")
    assert found is not None
    return found
