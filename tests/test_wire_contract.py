"""authui and the real ``@auth/core`` ``Auth`` handler, side by side, on the same requests.

Every scenario (a few requests sharing a cookie jar, like one browser) runs twice: through
``authui.Auth`` here, and through Auth.js's ``Auth`` in node (``tests/peers/authjs/core.mjs``,
one node process for the whole module). Both have the same configuration: one secret, a
trusted host, base path ``/auth`` and one credentials provider that accepts ada /
``correct horse``. The tests then compare the answers: equal where the wire contract is
deterministic (statuses, ``Location``, JSON bodies, cookie names and attributes), the same
format and structure where values are random (CSRF tokens, JWEs, expiry times).

Session and CSRF cookies also cross over: authui's cookies are sent to Auth.js and Auth.js's
to authui, and each must accept the other's.

Where authui deliberately differs (docs/reference/differences.md), the tests named
``test_documented_difference_*`` check each side's own behaviour.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import quote, urlencode

import pytest

from authui import (
    Auth,
    AuthConfig,
    Credentials,
    Request,
    Response,
    SessionOptions,
    jwt,
    set_env_defaults,
)
from tests.peers import authjs_node
from tests.peers.authjs_node import AuthJS

authjs = authjs_node.authjs  # the peer: fails under CI, skips elsewhere, without node

SECRET = "wire-contract-secret-0123456789abcdef"
USER = {"id": "42", "name": "Ada Lovelace", "email": "ada@example.com", "image": "https://x/a.png"}
SESSION_USER = {k: USER[k] for k in ("name", "email", "image")}
SESSION_MAX_AGE = 30 * 24 * 60 * 60
CLOCK_SLACK = timedelta(seconds=5)
"""How far apart two sides' expiry times may be: the runs are a moment apart."""

SITES = {"http": "http://localhost:3000", "https": "https://app.example.com"}
SITE_KEYS = tuple(SITES)

FORM = {"content-type": "application/x-www-form-urlencoded"}
JSON_TYPE = {"content-type": "application/json"}
RETURN_REDIRECT = {"x-auth-return-redirect": "1"}
BROWSER = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
BAD_CALLBACK = quote("javascript:alert(1)", safe="")
NO_CACHE = {
    "cache-control": ["private, no-cache, no-store"],
    "expires": ["0"],
    "pragma": ["no-cache"],
}

HEX64 = re.compile(r"[0-9a-f]{64}")
ISO_MS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
HTTP_DATE = re.compile(r"[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT")
JAR_PLACEHOLDER = re.compile(r"\{jar:([^}]+)\}")


async def authorize(credentials: dict[str, Any], request: Any) -> dict[str, Any] | None:
    """Accept ada / correct horse, like ``core.mjs``'s provider."""
    if credentials.get("username") == "ada" and credentials.get("password") == "correct horse":
        return dict(USER)
    return None


def make_config() -> AuthConfig:
    """authui's side of the configuration ``core.mjs`` gives Auth.js.

    ``update_age=0``: the JWT session is re-issued on every check, as Auth.js does; authui's
    default re-issues it once a day (tests/sessions/test_sessions.py), a documented difference."""
    provider = Credentials(
        credentials={
            "username": {"label": "Username", "autocomplete": "username"},
            "password": {"label": "Password", "type": "password"},
        },
        authorize=authorize,
    )
    env = {"AUTH_SECRET": SECRET, "AUTH_TRUST_HOST": "true"}
    config = AuthConfig(providers=[provider], session=SessionOptions(update_age=0))
    return set_env_defaults(env, config)


def session_name(site: str) -> str:
    return ("__Secure-" if site == "https" else "") + "authjs.session-token"


def callback_name(site: str) -> str:
    return ("__Secure-" if site == "https" else "") + "authjs.callback-url"


def last_used_name(site: str) -> str:
    return ("__Secure-" if site == "https" else "") + "authui.last-used"


def check_last_used(ours: Answer, site: str) -> None:
    """authui's one addition to a sign-in's cookies, after Auth.js's: the provider this
    browser signed in with, for the sign-in page's "Last used" mark (off with
    ``Theme(remember_last_used=False)``)."""
    name = last_used_name(site)
    assert ours.cookie_names[-1] == name
    cookie = ours.cookie(name)
    assert cookie.value == "credentials"
    assert cookie.shape == (
        name,
        (
            ("Max-Age", "31536000"),
            ("Path", "/"),
            ("HttpOnly", None),
            *((("Secure", None),) if site == "https" else ()),
            ("SameSite", "Lax"),
        ),
    )


def csrf_name(site: str) -> str:
    return ("__Host-" if site == "https" else "") + "authjs.csrf-token"


def default_attributes(site: str) -> tuple[tuple[str, str | None], ...]:
    """The attributes Auth.js gives its cookies by default, in the order it writes them."""
    secure: tuple[tuple[str, str | None], ...] = (("Secure", None),) if site == "https" else ()
    return (("Path", "/"), ("HttpOnly", None), *secure, ("SameSite", "Lax"))


# --- scenarios -------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One request. In the path, header values, cookie values and body, ``{csrf}`` stands for
    the token of the scenario's latest ``GET …/csrf`` and ``{jar:NAME}`` for the jar's value
    of cookie NAME. ``cookies`` (raw values) go on top of the jar; ``jar=False`` leaves the
    jar out."""

    method: str
    path: str
    headers: Mapping[str, str] = field(default_factory=dict)
    body: str | None = None
    cookies: Mapping[str, str] = field(default_factory=dict)
    jar: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "path": self.path,
            "headers": dict(self.headers),
            "body": self.body,
            "cookies": dict(self.cookies),
            "jar": self.jar,
        }


@dataclass(frozen=True)
class Scenario:
    """Requests from one browser to one origin, sharing a cookie jar."""

    name: str
    origin: str
    steps: tuple[Step, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "origin": self.origin,
            "steps": [step.to_json() for step in self.steps],
        }


def form(*, csrf: bool = True, **fields: str) -> str:
    """A URL-encoded body, starting with ``csrfToken={csrf}`` unless ``csrf`` is false."""
    encoded = urlencode(fields)
    if not csrf:
        return encoded
    return "csrfToken={csrf}" + (f"&{encoded}" if encoded else "")


def get(path: str, **kwargs: Any) -> Step:
    return Step("GET", path, **kwargs)


def post_form(path: str, body: str, headers: Mapping[str, str] | None = None) -> Step:
    return Step("POST", path, {**FORM, **(headers or {})}, body)


CSRF = get("/auth/csrf")
SIGN_IN_FORM = form(username="ada", password="correct horse", callbackUrl="/dashboard")
SIGN_IN = post_form("/auth/callback/credentials", SIGN_IN_FORM)
WRONG_PASSWORD = form(username="ada", password="wrong", callbackUrl="/dashboard")
NO_CSRF = form(csrf=False, username="ada", password="correct horse", callbackUrl="/dashboard")
EVIL = form(callbackUrl="https://evil.com/x")
UPDATE = json.dumps({"csrfToken": "{csrf}", "data": {"name": "Grace Hopper"}})
UPDATE_NO_CSRF = json.dumps({"data": {"name": "Grace Hopper"}})
ERRORS = ("Configuration", "AccessDenied", "Verification", "Other")
ERROR_PAGES = {  # error → (status, heading), reference §12
    "Configuration": (500, "Server error"),
    "AccessDenied": (403, "Access Denied"),
    "Verification": (403, "Unable to sign in"),
    "Other": (200, "Error"),
}


def _steps(site: str) -> dict[str, tuple[Step, ...]]:
    session = session_name(site)
    return {
        "csrf": (CSRF,),
        "csrf-twice": (CSRF, CSRF),
        "providers": (get("/auth/providers"),),
        "session-none": (get("/auth/session"),),
        "sign-in": (CSRF, SIGN_IN, get("/auth/session")),
        "sign-in-json": (
            CSRF,
            post_form("/auth/callback/credentials", SIGN_IN_FORM, RETURN_REDIRECT),
            get("/auth/session"),
        ),
        "wrong-password": (
            CSRF,
            post_form("/auth/callback/credentials", WRONG_PASSWORD),
            post_form("/auth/callback/credentials", WRONG_PASSWORD, RETURN_REDIRECT),
        ),
        "no-csrf": (
            post_form("/auth/callback/credentials", NO_CSRF),
            post_form("/auth/callback/credentials", NO_CSRF, RETURN_REDIRECT),
        ),
        "sign-out-json": (
            CSRF,
            SIGN_IN,
            post_form("/auth/signout", EVIL, RETURN_REDIRECT),
            get("/auth/session"),
        ),
        "sign-out": (CSRF, SIGN_IN, post_form("/auth/signout", EVIL), get("/auth/session")),
        "update": (
            CSRF,
            SIGN_IN,
            Step("POST", "/auth/session", JSON_TYPE, UPDATE),
            Step("POST", "/auth/session", JSON_TYPE, UPDATE_NO_CSRF),
        ),
        "bad-request": (
            Step("PUT", "/auth/signin"),
            get("/auth/nope"),
            get("/auth/session/credentials"),
        ),
        "get-signin-provider": (
            get("/auth/signin/credentials"),
            get("/auth/signin/credentials", headers=BROWSER),
        ),
        "client-errors": (
            get("/auth/nope", headers=BROWSER),
            get(f"/auth/signin?callbackUrl={BAD_CALLBACK}", headers=BROWSER),
            get(f"/auth/session?callbackUrl={BAD_CALLBACK}"),
        ),
        "error-pages": tuple(get(f"/auth/error?error={error}") for error in ERRORS),
        "pages": (get("/auth/signin"), get("/auth/signout")),
        "post-signin": (
            CSRF,
            post_form("/auth/signin", form()),
            post_form("/auth/signin/credentials", form()),
            post_form("/auth/signin/credentials", form(), RETURN_REDIRECT),
        ),
        "bad-json": (
            CSRF,
            Step("POST", "/auth/callback/credentials", JSON_TYPE, '{"csrfToken": "{csrf}"'),
            Step("POST", "/auth/callback/credentials", JSON_TYPE, '["{csrf}"]'),
        ),
        "prefixed-session": (
            CSRF,
            SIGN_IN,
            get("/auth/session", jar=False, cookies={f"{session}-foo": f"{{jar:{session}}}"}),
        ),
    }


SCENARIOS = [
    Scenario(f"{name}@{site}", origin, steps)
    for site, origin in SITES.items()
    for name, steps in _steps(site).items()
]


def cross_scenarios(source: Mapping[str, list[Answer]]) -> list[Scenario]:
    """Requests that carry one side's cookies, to be sent to the other side: the session
    cookie of ``sign-in`` to ``GET /session``, and the CSRF cookie of ``csrf`` to
    ``GET /csrf`` and, with its token, to ``POST /signout``."""
    scenarios = []
    for site, origin in SITES.items():
        session = source[f"sign-in@{site}"][1].cookie(session_name(site))
        csrf_answer = source[f"csrf@{site}"][0]
        csrf = csrf_answer.cookie(csrf_name(site))
        token = csrf_answer.json()["csrfToken"]
        scenarios += [
            Scenario(
                f"session@{site}",
                origin,
                (get("/auth/session", cookies={session.name: session.value}),),
            ),
            Scenario(
                f"csrf@{site}",
                origin,
                (
                    get("/auth/csrf", cookies={csrf.name: csrf.value}),
                    Step(
                        "POST",
                        "/auth/signout",
                        FORM,
                        urlencode({"csrfToken": token}),
                        cookies={csrf.name: csrf.value},
                    ),
                ),
            ),
        ]
    return scenarios


# --- answers ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SetCookie:
    """One ``Set-Cookie`` header: name, raw value and attributes in the order written."""

    name: str
    value: str
    attributes: tuple[tuple[str, str | None], ...]

    @classmethod
    def parse(cls, header: str) -> SetCookie:
        pair, *rest = header.split(";")
        name, _, value = pair.partition("=")
        attributes = []
        for attribute in rest:
            key, sep, attr_value = attribute.strip().partition("=")
            attributes.append((key, attr_value if sep else None))
        return cls(name.strip(), value.strip(), tuple(attributes))

    def has(self, name: str) -> bool:
        return any(k.lower() == name.lower() for k, _ in self.attributes)

    @property
    def expires(self) -> datetime:
        found = [v for k, v in self.attributes if k.lower() == "expires"]
        assert len(found) == 1, f"{self.name} has {len(found)} Expires attributes"
        assert found[0] is not None
        assert HTTP_DATE.fullmatch(found[0]), found[0]
        return parsedate_to_datetime(found[0])

    @property
    def shape(self) -> tuple[str, tuple[tuple[str, str | None], ...]]:
        """Name and attributes, with the value of ``Expires`` (a time) left out."""
        attributes = tuple(
            (k, "<date>" if k.lower() == "expires" else v) for k, v in self.attributes
        )
        return self.name, attributes

    @property
    def deletes(self) -> bool:
        return self.value == "" and ("Max-Age", "0") in self.attributes


@dataclass(frozen=True)
class Answer:
    """One response: status, headers (lower-cased names, every value) and body text."""

    status: int
    headers: Mapping[str, list[str]]
    body: str

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Answer:
        return cls(int(data["status"]), dict(data["headers"]), str(data["body"]))

    def header(self, name: str) -> str | None:
        """The header's value; it must not appear more than once."""
        values = self.headers.get(name, [])
        assert len(values) <= 1, f"{name} appears {len(values)} times: {values}"
        return values[0] if values else None

    @property
    def plain_headers(self) -> dict[str, list[str]]:
        """Every header but ``Set-Cookie``."""
        return {k: v for k, v in self.headers.items() if k != "set-cookie"}

    @property
    def set_cookies(self) -> list[SetCookie]:
        return [SetCookie.parse(h) for h in self.headers.get("set-cookie", [])]

    @property
    def cookie_names(self) -> list[str]:
        return [c.name for c in self.set_cookies]

    @property
    def cookie_shapes(self) -> list[tuple[str, tuple[tuple[str, str | None], ...]]]:
        return [c.shape for c in self.set_cookies]

    def cookie(self, name: str) -> SetCookie:
        found = [c for c in self.set_cookies if c.name == name]
        assert len(found) == 1, f"{name} is set {len(found)} times in {self.cookie_names}"
        return found[0]

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def media_type(self) -> str:
        content_type = self.header("content-type") or ""
        return content_type.split(";")[0].strip().lower()


def _fill(text: str, csrf: str, jar: Mapping[str, str]) -> str:
    text = text.replace("{csrf}", csrf)
    return JAR_PLACEHOLDER.sub(lambda m: jar.get(m.group(1), ""), text)


async def run_authui(config: AuthConfig, scenario: Scenario) -> list[Answer]:
    """``core.mjs``'s runner over ``authui.Auth``: the same jar and placeholder rules."""
    jar: dict[str, str] = {}
    csrf = ""
    answers = []
    for step in scenario.steps:
        headers = {k: _fill(v, csrf, jar) for k, v in step.headers.items()}
        cookies = dict(jar) if step.jar else {}
        cookies.update({k: _fill(v, csrf, jar) for k, v in step.cookies.items()})
        if cookies:
            headers["cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        body = _fill(step.body, csrf, jar) if step.body is not None else b""
        url = scenario.origin + _fill(step.path, csrf, jar)
        response = await Auth(Request.build(step.method, url, headers=headers, body=body), config)
        assert isinstance(response, Response)
        out: dict[str, list[str]] = {}
        for name, value in response.headers:
            out.setdefault(name.lower(), []).append(value)
        answer = Answer(response.status, out, response.body.decode("utf-8"))
        for cookie in answer.set_cookies:
            if ("max-age", "0") in {(k.lower(), v) for k, v in cookie.attributes}:
                jar.pop(cookie.name, None)
            else:
                jar[cookie.name] = cookie.value
        if step.method == "GET" and url.split("?")[0].endswith("/csrf"):
            csrf = str(answer.json()["csrfToken"])
        answers.append(answer)
    return answers


async def run_all_authui(config: AuthConfig, scenarios: Sequence[Scenario]) -> list[list[Answer]]:
    return [await run_authui(config, scenario) for scenario in scenarios]


def run_all_authjs(peer: AuthJS, scenarios: Sequence[Scenario]) -> list[list[Answer]]:
    results = peer.core(SECRET, [s.to_json() for s in scenarios])
    return [[Answer.from_json(step) for step in steps] for steps in results]


@dataclass(frozen=True)
class Runs:
    """Both sides' answers by scenario name. ``authjs_cross`` is Auth.js answering requests
    that carry authui's cookies; ``authui_cross`` is authui answering Auth.js's cookies."""

    authui: dict[str, list[Answer]]
    authjs: dict[str, list[Answer]]
    authui_cross: dict[str, list[Answer]]
    authjs_cross: dict[str, list[Answer]]
    started: datetime

    def step(self, name: str, site: str, index: int) -> tuple[Answer, Answer]:
        """(authui, Auth.js) answers to step ``index`` of scenario ``name`` on ``site``."""
        key = f"{name}@{site}"
        return self.authui[key][index], self.authjs[key][index]

    def steps(self, name: str, site: str) -> list[tuple[Answer, Answer]]:
        key = f"{name}@{site}"
        return list(zip(self.authui[key], self.authjs[key], strict=True))


@pytest.fixture(scope="module")
def runs(authjs: AuthJS) -> Runs:
    """Every scenario through both; then each side's cookies through the other."""
    started = datetime.now(UTC)
    config = make_config()
    names = [s.name for s in SCENARIOS]
    ours = dict(zip(names, asyncio.run(run_all_authui(config, SCENARIOS)), strict=True))
    to_authjs = cross_scenarios(ours)
    answers = run_all_authjs(authjs, [*SCENARIOS, *to_authjs])
    theirs = dict(zip(names, answers[: len(SCENARIOS)], strict=True))
    theirs_cross = {s.name: a for s, a in zip(to_authjs, answers[len(SCENARIOS) :], strict=True)}
    to_authui = cross_scenarios(theirs)
    cross_answers = asyncio.run(run_all_authui(config, to_authui))
    ours_cross = {s.name: a for s, a in zip(to_authui, cross_answers, strict=True)}
    return Runs(ours, theirs, ours_cross, theirs_cross, started)


sites = pytest.mark.parametrize("site", SITE_KEYS)


def assert_expiry_near(expires: datetime, started: datetime) -> None:
    """``expires`` is now + the session max age, give or take the run's duration."""
    expected = started + timedelta(seconds=SESSION_MAX_AGE)
    assert expected - timedelta(seconds=2) <= expires <= expected + timedelta(seconds=60)


def csrf_cookie_value(token: str) -> str:
    """``token|sha256(token + secret)``, percent-encoded as it travels (reference §4)."""
    digest = hashlib.sha256((token + SECRET).encode()).hexdigest()
    return f"{token}%7C{digest}"


def b64url_json(segment: str) -> Any:
    return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))


# --- 1 and 13: CSRF --------------------------------------------------------------------


@sites
def test_csrf_fresh(runs: Runs, site: str) -> None:
    ours, theirs = runs.step("csrf", site, 0)
    for answer in (ours, theirs):
        assert answer.status == 200
        assert answer.plain_headers == {"content-type": ["application/json"], **NO_CACHE}
        body = answer.json()
        assert set(body) == {"csrfToken"}
        assert HEX64.fullmatch(body["csrfToken"])
        assert answer.cookie_names == [csrf_name(site), callback_name(site)]
        assert answer.cookie(csrf_name(site)).value == csrf_cookie_value(body["csrfToken"])
        assert answer.cookie(callback_name(site)).value == quote(SITES[site], safe="")
        for cookie in answer.set_cookies:
            assert cookie.attributes == default_attributes(site)
    assert ours.status == theirs.status
    assert ours.plain_headers == theirs.plain_headers
    assert ours.headers["set-cookie"][1] == theirs.headers["set-cookie"][1]
    assert ours.cookie_shapes == theirs.cookie_shapes


@sites
def test_csrf_token_is_reused_with_the_jar(runs: Runs, site: str) -> None:
    (ours_first, theirs_first), (ours_second, theirs_second) = runs.steps("csrf-twice", site)
    assert ours_second.json() == ours_first.json()
    assert theirs_second.json() == theirs_first.json()
    assert ours_second.status == theirs_second.status == 200
    assert ours_second.plain_headers == theirs_second.plain_headers
    assert theirs_second.plain_headers == {"content-type": ["application/json"], **NO_CACHE}
    assert "set-cookie" not in ours_second.headers
    assert "set-cookie" not in theirs_second.headers


# --- 2, 3: providers, session without a cookie -----------------------------------------


@sites
def test_providers(runs: Runs, site: str) -> None:
    origin = SITES[site]
    ours, theirs = runs.step("providers", site, 0)
    assert ours.status == theirs.status == 200
    assert ours.plain_headers == theirs.plain_headers == {"content-type": ["application/json"]}
    assert ours.body == theirs.body
    assert theirs.json() == {
        "credentials": {
            "id": "credentials",
            "name": "Credentials",
            "type": "credentials",
            "signinUrl": f"{origin}/auth/signin/credentials",
            "callbackUrl": f"{origin}/auth/callback/credentials",
        }
    }
    assert "set-cookie" not in ours.headers
    assert "set-cookie" not in theirs.headers


@sites
def test_session_without_cookie(runs: Runs, site: str) -> None:
    ours, theirs = runs.step("session-none", site, 0)
    assert ours.status == theirs.status == 200
    assert ours.body == theirs.body == "null"
    assert ours.plain_headers == theirs.plain_headers
    assert theirs.plain_headers == {"content-type": ["application/json"], **NO_CACHE}
    assert ours.cookie_shapes == theirs.cookie_shapes
    assert ours.cookie_names == [csrf_name(site), callback_name(site)]


# --- 4, 5: credentials sign-in ---------------------------------------------------------


@sites
def test_credentials_sign_in_redirects_and_sets_cookies(runs: Runs, site: str) -> None:
    ours, theirs = runs.step("sign-in", site, 1)
    assert ours.status == theirs.status == 302
    assert ours.plain_headers == theirs.plain_headers
    assert theirs.header("location") == f"{SITES[site]}/dashboard"
    assert theirs.cookie_names == [callback_name(site), session_name(site)]
    assert ours.cookie_names[:-1] == theirs.cookie_names
    assert ours.cookie_shapes[:-1] == theirs.cookie_shapes
    check_last_used(ours, site)
    assert ours.headers["set-cookie"][0] == theirs.headers["set-cookie"][0]
    expected = (
        ("Path", "/"),
        ("Expires", "<date>"),
        ("HttpOnly", None),
        *((("Secure", None),) if site == "https" else ()),
        ("SameSite", "Lax"),
    )
    session = session_name(site)
    assert theirs.cookie(session).shape == (session, expected)
    assert not ours.cookie(session).has("Max-Age")
    ours_expiry, theirs_expiry = ours.cookie(session).expires, theirs.cookie(session).expires
    assert abs(ours_expiry - theirs_expiry) <= CLOCK_SLACK
    assert_expiry_near(ours_expiry, runs.started)
    assert_expiry_near(theirs_expiry, runs.started)


@sites
def test_session_token_format(runs: Runs, site: str) -> None:
    """A compact JWE (``dir``, A256CBC-HS512) whose header, kid included, is the same on
    both sides; authui decodes both to Auth.js's claims, its own with when and how the user
    signed in (``auth_time``, ``amr``: the account center's step-up reads them)."""
    name = session_name(site)
    ours, theirs = (a.cookie(name).value for a in runs.step("sign-in", site, 1))
    ours_parts, theirs_parts = ours.split("."), theirs.split(".")
    assert len(ours_parts) == len(theirs_parts) == 5
    assert ours_parts[0] == theirs_parts[0]
    assert b64url_json(theirs_parts[0]) == {
        "alg": "dir",
        "enc": "A256CBC-HS512",
        "kid": jwt.key_id(SECRET, name),
    }
    for parts in (ours_parts, theirs_parts):
        assert parts[1] == ""
        assert len(parts[2]) == 22
        assert len(parts[4]) == 43
    claims = [jwt.decode(token=token, secret=SECRET, salt=name) for token in (ours, theirs)]
    authjs_claims = {"name", "email", "picture", "sub", "iat", "exp", "jti"}
    for claim, extra in zip(claims, ({"auth_time", "amr"}, set()), strict=True):
        assert claim is not None
        assert set(claim) == authjs_claims | extra
        assert claim["exp"] - claim["iat"] == SESSION_MAX_AGE
        assert uuid.UUID(claim["jti"]).version == 4
    assert claims[0] is not None
    assert claims[1] is not None
    fixed = ("name", "email", "picture", "sub")
    assert {k: claims[0][k] for k in fixed} == {k: claims[1][k] for k in fixed}
    assert claims[1]["sub"] == "42"
    assert claims[1]["picture"] == USER["image"]


def assert_same_session(ours: Answer, theirs: Answer, site: str) -> None:
    """A ``GET /session`` answer for the signed-in user, alike on both sides."""
    assert ours.status == theirs.status == 200
    assert ours.plain_headers == theirs.plain_headers
    assert theirs.plain_headers == {"content-type": ["application/json"], **NO_CACHE}
    ours_body, theirs_body = ours.json(), theirs.json()
    assert isinstance(ours_body, dict), ours.body
    assert isinstance(theirs_body, dict), theirs.body
    assert set(ours_body) == set(theirs_body) == {"user", "expires"}
    assert ours_body["user"] == theirs_body["user"] == SESSION_USER
    for body in (ours_body, theirs_body):
        assert ISO_MS.fullmatch(body["expires"])
    ours_expiry = datetime.fromisoformat(ours_body["expires"])
    theirs_expiry = datetime.fromisoformat(theirs_body["expires"])
    assert abs(ours_expiry - theirs_expiry) <= CLOCK_SLACK
    session = session_name(site)
    assert ours.cookie(session).shape == theirs.cookie(session).shape
    assert not ours.cookie(session).deletes


@sites
def test_session_after_sign_in(runs: Runs, site: str) -> None:
    ours, theirs = runs.step("sign-in", site, 2)
    assert_same_session(ours, theirs, site)
    assert ours.cookie_names == theirs.cookie_names == [session_name(site)]


@sites
def test_session_cookies_cross_over(runs: Runs, site: str) -> None:
    """Auth.js reads the session authui made, and authui the one Auth.js made."""
    key = f"session@{site}"
    (authjs_reads_ours,) = runs.authjs_cross[key]
    (authui_reads_theirs,) = runs.authui_cross[key]
    assert_same_session(authui_reads_theirs, authjs_reads_ours, site)
    assert authui_reads_theirs.cookie_names == authjs_reads_ours.cookie_names


@sites
def test_sign_in_with_return_redirect(runs: Runs, site: str) -> None:
    ours, theirs = runs.step("sign-in-json", site, 1)
    assert ours.status == theirs.status == 200
    assert ours.body == theirs.body
    assert theirs.json() == {"url": f"{SITES[site]}/dashboard"}
    assert ours.plain_headers == theirs.plain_headers
    assert theirs.header("content-type") == "application/json"
    assert theirs.header("location") == f"{SITES[site]}/dashboard"
    assert theirs.cookie_names == [callback_name(site), session_name(site)]
    assert ours.cookie_names[:-1] == theirs.cookie_names
    assert ours.cookie_shapes[:-1] == theirs.cookie_shapes
    check_last_used(ours, site)
    assert_same_session(*runs.step("sign-in-json", site, 2), site)


# --- 6: failed sign-ins ----------------------------------------------------------------


@sites
@pytest.mark.parametrize(
    ("scenario", "first", "query"),
    [
        ("wrong-password", 1, "error=CredentialsSignin&code=credentials"),
        ("no-csrf", 0, "error=MissingCSRF"),
    ],
)
def test_failed_sign_in(runs: Runs, site: str, scenario: str, first: int, query: str) -> None:
    url = f"{SITES[site]}/auth/signin?{query}"
    ours, theirs = runs.step(scenario, site, first)
    assert ours.status == theirs.status == 302
    assert ours.plain_headers == theirs.plain_headers == {"location": [url]}
    ours, theirs = runs.step(scenario, site, first + 1)
    assert ours.status == theirs.status == 200
    assert ours.body == theirs.body
    assert theirs.json() == {"url": url}
    assert ours.plain_headers == theirs.plain_headers == {"content-type": ["application/json"]}
    for ours, theirs in runs.steps(scenario, site)[first:]:
        assert "set-cookie" not in ours.headers
        assert "set-cookie" not in theirs.headers


# --- 7: sign-out -----------------------------------------------------------------------


def session_deletion(site: str) -> str:
    secure = "Secure; " if site == "https" else ""
    return f"{session_name(site)}=; Max-Age=0; Path=/; HttpOnly; {secure}SameSite=Lax"


@sites
def test_sign_out_with_return_redirect_refuses_foreign_callback(runs: Runs, site: str) -> None:
    origin = SITES[site]
    ours, theirs = runs.step("sign-out-json", site, 2)
    assert ours.status == theirs.status == 200
    assert ours.body == theirs.body
    assert theirs.json() == {"url": origin}
    assert ours.plain_headers == theirs.plain_headers
    assert theirs.plain_headers == {"content-type": ["application/json"], "location": [origin]}
    assert ours.headers["set-cookie"] == theirs.headers["set-cookie"]
    assert theirs.headers["set-cookie"][-1] == session_deletion(site)
    ours, theirs = runs.step("sign-out-json", site, 3)
    assert ours.status == theirs.status == 200
    assert ours.body == theirs.body == "null"


@sites
def test_sign_out_deletes_the_session_cookie(runs: Runs, site: str) -> None:
    origin = SITES[site]
    ours, theirs = runs.step("sign-out", site, 2)
    assert ours.status == theirs.status == 302
    assert ours.plain_headers == theirs.plain_headers == {"location": [origin]}
    assert ours.headers["set-cookie"] == theirs.headers["set-cookie"]
    assert theirs.headers["set-cookie"] == [
        f"{callback_name(site)}={quote(origin, safe='')}; "
        + "; ".join(k if v is None else f"{k}={v}" for k, v in default_attributes(site)),
        session_deletion(site),
    ]
    ours, theirs = runs.step("sign-out", site, 3)
    assert ours.status == theirs.status == 200
    assert ours.body == theirs.body == "null"
    assert "set-cookie" not in ours.headers
    assert "set-cookie" not in theirs.headers


# --- 8: session update -----------------------------------------------------------------


@sites
def test_session_update(runs: Runs, site: str) -> None:
    ours, theirs = runs.step("update", site, 2)
    assert ours.status == theirs.status == 200
    assert ours.plain_headers == theirs.plain_headers == {"content-type": ["application/json"]}
    ours_body, theirs_body = ours.json(), theirs.json()
    assert set(ours_body) == set(theirs_body) == {"user", "expires"}
    assert ours_body["user"] == theirs_body["user"] == SESSION_USER
    assert ISO_MS.fullmatch(ours_body["expires"])
    assert ours.cookie_shapes == theirs.cookie_shapes
    assert ours.cookie_names == [session_name(site)]


@sites
def test_session_update_without_csrf(runs: Runs, site: str) -> None:
    ours, theirs = runs.step("update", site, 3)
    assert ours.status == theirs.status == 400
    assert ours.body == theirs.body == "null"
    assert ours.plain_headers == theirs.plain_headers == {"content-type": ["application/json"]}
    assert "set-cookie" not in ours.headers
    assert "set-cookie" not in theirs.headers


# --- 9, 10, 12: bad requests and sign-in redirects -------------------------------------


@sites
def test_bad_requests(runs: Runs, site: str) -> None:
    for ours, theirs in runs.steps("bad-request", site):
        assert ours.status == theirs.status == 400
        assert ours.body == theirs.body == '"Bad request."'
        assert ours.plain_headers == theirs.plain_headers == {"content-type": ["application/json"]}
        assert "set-cookie" not in ours.headers
        assert "set-cookie" not in theirs.headers


@sites
def test_documented_difference_get_signin_with_provider(runs: Runs, site: str) -> None:
    """``GET /signin/<provider>`` is the client's error: Auth.js sends it to
    ``error=Configuration``; authui answers 400 as to any request it has no action for,
    ``"Bad request."`` or, for a browser, the "Bad request" page."""
    location = f"{SITES[site]}/auth/error?error=Configuration"
    for index in (0, 1):
        ours, theirs = runs.step("get-signin-provider", site, index)
        assert theirs.status == 302
        assert theirs.plain_headers == {"location": [location]}
        assert ours.status == 400
        assert "set-cookie" not in ours.headers
        assert "set-cookie" not in theirs.headers
    ours, _ = runs.step("get-signin-provider", site, 0)
    assert ours.body == '"Bad request."'
    ours, _ = runs.step("get-signin-provider", site, 1)
    assert ours.media_type == "text/html"
    assert ">Bad request</h1>" in ours.body


@sites
def test_post_signin_goes_to_the_signin_page(runs: Runs, site: str) -> None:
    location = f"{SITES[site]}/auth/signin"
    for index in (1, 2):
        ours, theirs = runs.step("post-signin", site, index)
        assert ours.status == theirs.status == 302
        assert ours.plain_headers == theirs.plain_headers == {"location": [location]}
        assert ours.cookie_names == theirs.cookie_names == []
    ours, theirs = runs.step("post-signin", site, 3)
    assert ours.status == theirs.status == 200
    assert ours.body == theirs.body
    assert theirs.json() == {"url": location}
    assert ours.plain_headers == theirs.plain_headers


# --- 11: pages -------------------------------------------------------------------------


@sites
def test_error_pages(runs: Runs, site: str) -> None:
    for error, (ours, theirs) in zip(ERRORS, runs.steps("error-pages", site), strict=True):
        status, heading = ERROR_PAGES[error]
        assert ours.status == theirs.status == status, error
        assert ours.headers["content-type"] == theirs.headers["content-type"]
        for answer in (ours, theirs):
            assert "<title>Error</title>" in answer.body
            assert f">{heading}</h1>" in answer.body
        assert ours.cookie_shapes == theirs.cookie_shapes


def csrf_token_of(answer: Answer, site: str) -> str:
    value = answer.cookie(csrf_name(site)).value
    token, _, _ = value.partition("%7C")
    assert HEX64.fullmatch(token)
    return token


@sites
def test_sign_in_and_sign_out_pages(runs: Runs, site: str) -> None:
    origin = SITES[site]
    (ours_in, theirs_in), (ours_out, theirs_out) = runs.steps("pages", site)
    assert ours_in.cookie_shapes == theirs_in.cookie_shapes
    assert ours_out.cookie_shapes == theirs_out.cookie_shapes == []
    assert ours_in.headers["content-type"] == theirs_in.headers["content-type"]
    for page_in, page_out in ((ours_in, ours_out), (theirs_in, theirs_out)):
        token = csrf_token_of(page_in, site)
        hidden = f'name="csrfToken" value="{token}"'
        assert page_in.status == page_out.status == 200
        assert page_in.headers["content-type"] == page_out.headers["content-type"]
        assert page_in.media_type == "text/html"
        assert "<title>Sign In</title>" in page_in.body
        assert f'action="{origin}/auth/callback/credentials"' in page_in.body
        assert hidden in page_in.body
        assert "<title>Sign Out</title>" in page_out.body
        assert f'action="{origin}/auth/signout"' in page_out.body
        assert hidden in page_out.body


# --- CSRF cookies cross over -----------------------------------------------------------


@sites
def test_csrf_cookies_cross_over(runs: Runs, site: str) -> None:
    """Each side reuses the other's CSRF cookie and accepts its token on a POST."""
    origin = SITES[site]
    key = f"csrf@{site}"
    for answers, source in (
        (runs.authjs_cross[key], runs.authui),
        (runs.authui_cross[key], runs.authjs),
    ):
        csrf, signout = answers
        assert csrf.status == 200
        assert csrf.json() == source[key][0].json()
        assert csrf.cookie_names == [callback_name(site)]
        assert signout.status == 302
        assert signout.plain_headers == {"location": [origin]}
    ours, theirs = runs.authui_cross[key], runs.authjs_cross[key]
    assert [a.cookie_shapes for a in ours] == [a.cookie_shapes for a in theirs]


# --- documented differences ------------------------------------------------------------


@sites
def test_documented_difference_error_page_sign_in_button(runs: Runs, site: str) -> None:
    """Auth.js links the button to the current URL with ``/signin`` appended; authui to
    ``<base path>/signin``."""
    origin = SITES[site]
    for error in ("AccessDenied", "Verification"):
        ours, theirs = runs.step("error-pages", site, ERRORS.index(error))
        current = f"{origin}/auth/error?error={error}"
        assert f'href="{current}/signin"' in theirs.body
        assert f'href="{origin}/auth/signin"' in ours.body
        assert f'href="{current}/signin"' not in ours.body


@sites
def test_documented_difference_malformed_json_body(runs: Runs, site: str) -> None:
    """authui answers 400 ``{"message": …}`` to a JSON body that is not valid JSON or not an
    object. Auth.js answers invalid JSON with 400 ``"Bad request."`` and reads an array as
    no fields at all (so the CSRF token in it is missing)."""
    ours, theirs = runs.step("bad-json", site, 1)
    assert ours.status == theirs.status == 400
    assert theirs.body == '"Bad request."'
    assert ours.json() == {"message": "The request body is not valid JSON."}
    ours, theirs = runs.step("bad-json", site, 2)
    assert theirs.status == 302
    assert theirs.header("location") == f"{SITES[site]}/auth/signin?error=MissingCSRF"
    assert ours.status == 400
    assert ours.json() == {"message": "The JSON request body must be an object."}


@sites
def test_documented_difference_client_errors_are_4xx(runs: Runs, site: str) -> None:
    """No such action, asked for by a browser: Auth.js answers ``"Bad request."``, authui
    the "Bad request" page. A ``callbackUrl`` that is no path or http(s) URL: Auth.js
    answers it as a configuration error (500); authui as the client's (400), with the
    sign-in page still there, the parameter passed over."""
    (ours, theirs), (ours_in, theirs_in), (ours_json, theirs_json) = runs.steps(
        "client-errors", site
    )
    assert ours.status == theirs.status == 400
    assert theirs.body == '"Bad request."'
    assert ours.media_type == "text/html"
    assert ">Bad request</h1>" in ours.body
    assert theirs_in.status == 500
    assert ">Server error</h1>" in theirs_in.body
    assert ours_in.status == 400
    assert 'name="username"' in ours_in.body
    assert "javascript:" not in ours_in.body
    assert theirs_json.status == 500
    assert theirs_json.json() == {
        "message": "There was a problem with the server configuration. "
        "Check the server logs for more information."
    }
    assert ours_json.status == 400
    assert ours_json.json() == {
        "message": "The callbackUrl must be a path or an absolute http(s) URL."
    }


@sites
def test_documented_difference_session_chunks_by_exact_name(runs: Runs, site: str) -> None:
    """Auth.js reads a session from any cookie whose name starts with the session cookie's
    name; authui only from the name itself and ``<name>.<n>``."""
    ours, theirs = runs.step("prefixed-session", site, 2)
    assert ours.status == theirs.status == 200
    assert theirs.json()["user"] == SESSION_USER
    assert ours.body == "null"
