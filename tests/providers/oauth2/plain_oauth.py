"""What every plain OAuth 2 built-in provider's test checks, given the service's facts: the
authorization URL, the token request, and the user and account a sign-in produces."""

from __future__ import annotations

import base64
import hashlib
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest

from authui.providers.oauth import OAuthProvider
from tests.oauth.standin import (
    APP,
    CLIENT_ID,
    CLIENT_SECRET,
    Outcome,
    StandIn,
    form_of,
    sign_in_through,
)

BASIC = "Basic " + base64.b64encode(b"client-id-123:client+secret%2B%2F%3D").decode()
"""``base64(formUrlEncode(CLIENT_ID) + ":" + formUrlEncode(CLIENT_SECRET))``, written out."""


@dataclass(frozen=True)
class Service:
    """A service's facts, as the provider must send them.

    Attributes:
        id: The provider id.
        authorization: The authorization URL without its query.
        token: The token URL.
        userinfo: The profile route, ``"METHOD url"`` (the URL without its query).
        params: The authorization parameters besides ``response_type``, ``client_id``,
            ``redirect_uri`` and the checks' parameters.
        checks: The provider's checks.
    """

    id: str
    authorization: str
    token: str
    userinfo: str
    params: Mapping[str, str]
    checks: tuple[str, ...] = ("pkce",)

    def standin(self, token: Any, user: Any, **routes: Any) -> StandIn:
        """The service answering ``token`` at its token URL and ``user`` as the profile."""
        return StandIn({f"POST {self.token}": token, self.userinfo: user, **routes})


def check_authorization(outcome: Outcome, service: Service, **extra: str) -> None:
    """The user went to the service's authorization URL with exactly the expected query."""
    parts = urlsplit(outcome.authorization_url)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == service.authorization
    params = dict(outcome.params)
    if "pkce" in service.checks:
        assert params.pop("code_challenge_method") == "S256"
        assert len(params.pop("code_challenge")) == 43
    if "state" in service.checks:
        assert len(params.pop("state")) > 40
    assert params == {
        "response_type": "code",
        "client_id": CLIENT_ID,
        "redirect_uri": f"{APP}/auth/callback/{service.id}",
        **service.params,
        **extra,
    }


def check_token_request(
    outcome: Outcome, standin: StandIn, service: Service, *, in_form: bool = False
) -> None:
    """The code was exchanged at the token URL, the client authenticated with Basic; or,
    ``in_form``, with its id and secret in the form (``client_secret_post``) and no
    ``Authorization`` header."""
    request = standin.sent("POST", service.token)
    form = form_of(request)
    verifier = form.pop("code_verifier", None)
    credentials = {"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET} if in_form else {}
    assert form == {
        "grant_type": "authorization_code",
        "code": "authorization-code-1",
        "redirect_uri": f"{APP}/auth/callback/{service.id}",
        **credentials,
    }
    if "pkce" in service.checks:
        assert verifier is not None
        digest = hashlib.sha256(verifier.encode()).digest()
        challenge = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
        assert challenge == outcome.params["code_challenge"]
    else:
        assert verifier is None
    if in_form:
        assert "authorization" not in request.headers
    else:
        assert request.headers["authorization"] == BASIC
        assert CLIENT_SECRET not in request.content.decode()


def check_signed_in(
    outcome: Outcome,
    service: Service,
    token: Mapping[str, Any],
    *,
    account_id: str,
    name: str | None,
    email: str | None,
    image: str | None,
) -> None:
    """The user, the account and the session of the sign-in."""
    user = {k: v for k, v in outcome.user.items() if v is not None}
    assert user.pop("id")
    expected = {"name": name, "email": email, "image": image}
    assert user == {k: v for k, v in expected.items() if v is not None}
    account = outcome.account
    assert account["providerAccountId"] == account_id
    assert account["provider"] == service.id
    assert account["type"] == "oauth"
    assert account["access_token"] == token["access_token"]
    assert account["token_type"] == "bearer"
    if "expires_in" in token:
        expires_at = int(time.time()) + int(token["expires_in"])
        assert expires_at - 5 <= account["expires_at"] <= expires_at
    else:
        assert "expires_at" not in account
    # What the user lacks is null or left out of the session (as JSON leaves out undefined).
    shown = {k: v for k, v in outcome.session["user"].items() if v is not None}
    assert shown == {k: v for k, v in expected.items() if v is not None}


def check_param_override(provider: OAuthProvider, service: Service, **params: str) -> None:
    """``provider`` was made with ``authorization={"params": params}``: the URL and the
    other parameters stay, ``params`` replace or add to the service's."""
    assert provider.authorization.url == service.authorization
    assert dict(provider.authorization.params) == {**service.params, **params}
    assert provider.token.url == service.token
    assert provider.userinfo.url is not None
    assert service.userinfo.split(" ", 1)[1] in provider.userinfo.url


async def check_sign_in_refused(
    provider: OAuthProvider, standin: StandIn, caplog: pytest.LogCaptureFixture, *logged: str
) -> Outcome:
    """A sign-in the service refuses (an error answer of its token or profile endpoint)
    ends on the error page with ``Configuration``, as Auth.js ends a failed callback, with
    no user and no session, and the log names the cause (each of ``logged``)."""
    outcome = await sign_in_through(provider, standin)
    assert outcome.signed_in is None
    assert outcome.callback.header("location") == f"{APP}/auth/error?error=Configuration"
    for text in ("CallbackRouteError", *logged):
        assert text in caplog.text
    assert outcome.session is None
    return outcome
