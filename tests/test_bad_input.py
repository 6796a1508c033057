"""Bad input never breaks ``Auth()``: no 5xx, no escaping exception, no open redirect.

Four property-based tests send at least 2,400 generated requests (strategies in
``tests/fuzz_strategies.py``) through :func:`authui.Auth` with valid configurations, and
check every response (:func:`check_response`):

- no exception escapes and the status is below 500, except the one 500 the reference
  documents for a valid configuration: the error page for ``?error=Configuration`` (§12).
  (Auth.js's other one, ``InvalidCallbackUrl`` for a ``callbackUrl`` query parameter or
  callback-url cookie that is neither a path nor an http(s) URL, is the client's error in
  authui: 400 for the parameter, and the cookie is replaced);
- a 302 has a ``Location``, and where it (or the ``url`` of an ``X-Auth-Return-Redirect``
  answer) leads off the page, it leads to the request's own origin as a browser parses it;
- header values are what a server can send (Latin-1, no CR/LF/NUL);
- JSON parses (strictly), HTML is UTF-8 with no script or ``javascript:`` URL taken from
  the request, no Python traceback, no secret anywhere;
- 413 exactly for bodies over ``max_body_size``;
- where the path names an action cleanly, the answer that action always gives: GET
  ``session`` is 200 with a session or ``null``, GET ``csrf`` 200 with a token, POST
  ``signout`` a redirect, and so on (:func:`check_action_contract`).

While they run, the ``authui`` logger is silenced by a filter that still formats every
record and fails the test if a secret shows up in one.

Each fuzz test asserts how many requests it sent, and ``test_zz_total_requests`` asserts
the total of at least 2,000 when all four ran and passed. The explicit tests after them pin
the nastiest cases, and the requests with which the fuzz found bugs in authui.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote, unquote, urlencode, urlsplit

import pytest
from hypothesis import HealthCheck, given, settings

from authui import Auth
from authui.http import Request, Response
from authui.jwt import get_token
from tests.fuzz_strategies import (
    MAX_BODY,
    OTHER_SECRET,
    PASSWORD,
    PLAIN,
    PLAIN_NAMES,
    SECRET,
    SECURE,
    SECURE_NAMES,
    USER,
    Scenario,
    Site,
    body_scenarios,
    cookie_scenarios,
    csrf_cookie,
    mint_session,
    redirect_scenarios,
    routing_scenarios,
)

EXAMPLES_PER_TEST = 600
FUZZ_TESTS = 4
MIN_TOTAL = 2000

TRACEBACK = b"Traceback (most recent call last)"
SECRETS = (SECRET, OTHER_SECRET)

SENT: dict[str, int] = {}
"""Requests sent per fuzz test, by test name."""

FUZZ = settings(
    max_examples=EXAMPLES_PER_TEST,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)


# ---------------------------------------------------------------------------------------------
# Sending and checking.


def send(request: Request, site: Site) -> Response:
    """Run ``Auth()`` to completion; any exception it raises is a failure of the caller."""
    response = asyncio.run(Auth(request, site.config))
    assert isinstance(response, Response)
    return response


def send_scenario(scenario: Scenario, counter: str) -> Response:
    SENT[counter] = SENT.get(counter, 0) + 1
    request = scenario.request()
    try:
        return send(request, scenario.site)
    except Exception as exc:
        raise AssertionError(f"Auth() raised {type(exc).__name__}: {exc}") from exc


_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_C0_OR_SPACE = "".join(chr(c) for c in range(0x21))
_DEFAULT_PORTS = {"http": 80, "https": 443}


def browser_origin(location: str, base_origin: str) -> str:
    """The origin a browser navigates to for ``location`` on a page of ``base_origin``.

    A small model of the WHATWG URL parser for http(s), enough to see through the tricks
    Python's ``urlsplit`` misses: ``\\`` is a path separator, any run of slashes or
    backslashes after the scheme starts the authority, the host is after the last ``@``,
    tabs and newlines are removed. Anything that is not http(s) gives ``"unsafe:<scheme>"``.
    """
    url = location.strip(_C0_OR_SPACE).replace("\t", "").replace("\n", "").replace("\r", "")
    base_scheme = base_origin.split(":", 1)[0]
    match = _SCHEME.match(url)
    if match:
        scheme = match.group(1).lower()
        rest = url[match.end() :]
        if scheme not in ("http", "https"):
            return f"unsafe:{scheme}"
        if scheme == base_scheme and not rest.startswith(("/", "\\")):
            return base_origin
    elif url.startswith(("//", "\\\\", "/\\", "\\/")):
        scheme, rest = base_scheme, url
    else:
        return base_origin
    rest = rest.replace("\\", "/").lstrip("/")
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    hostport = authority.rpartition("@")[2]
    host, port = hostport, ""
    if hostport.startswith("["):
        host, _, after = hostport.partition("]")
        host += "]"
        port = after[1:] if after.startswith(":") else ""
    elif ":" in hostport:
        host, _, port = hostport.rpartition(":")
    host = unquote(host).lower()
    if not port:
        return f"{scheme}://{host}"
    if not port.isdigit():
        return f"{scheme}://{host}:<bad port {port!r}>"
    number = int(port)
    return f"{scheme}://{host}" + ("" if number == _DEFAULT_PORTS[scheme] else f":{number}")


def expected_origin(origin: str) -> str:
    return browser_origin(origin + "/", origin)


def _strict_json(body: bytes) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(body.decode("utf-8"), parse_constant=refuse)


def _is_valid_callback_url(value: str) -> bool:
    """Reference §11.3: a relative path or an absolute http(s) URL, read as browsers read
    it (``\\`` as ``/``: ``http:/\\evil.com`` is ``http://evil.com``)."""
    if value.startswith("/"):
        return True
    try:
        parts = urlsplit(value.replace("\\", "/"))
        _ = parts.port
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def has_invalid_callback_url(scenario: Scenario) -> bool:
    """Whether the request carries a non-empty ``callbackUrl`` query parameter that is not
    valid: Auth.js's ``InvalidCallbackUrl`` check (which skips empty values), answered 400."""
    value = scenario.request().query.get("callbackUrl")
    return bool(value and not _is_valid_callback_url(value))


def is_configuration_page(response: Response) -> bool:
    content_type = response.header("content-type") or ""
    return "text/html" in content_type and b">Server error</h1>" in response.body


def documented_500(scenario: Scenario, response: Response) -> bool:
    """The 500s a valid configuration may answer (see the module docstring)."""
    if response.status != 500:
        return False
    error = scenario.request().query.get("error")
    is_get = scenario.method.upper() == "GET"
    return is_get and error == "Configuration" and is_configuration_page(response)


def check_redirect_target(target: str, scenario: Scenario, what: str) -> None:
    expected = expected_origin(scenario.origin)
    actual = browser_origin(target, expected)
    assert actual == expected, (
        f"open redirect: {what} {target!r} leads a browser to {actual!r}, "
        f"not the request's origin {expected!r}"
    )


def check_response(scenario: Scenario, response: Response) -> None:
    """Every property a response to any request must have."""
    status = response.status
    assert 200 <= status < 500 or documented_500(scenario, response), (
        f"status {status}: {response.body[:300]!r}"
    )
    for name, value in response.headers:
        assert isinstance(name, str)
        assert isinstance(value, str)
        assert not set(value) & {"\r", "\n", "\0"}, f"control character in {name}: {value!r}"
        try:
            value.encode("latin-1")
        except UnicodeEncodeError:
            pytest.fail(f"header {name} cannot be sent (not Latin-1): {value[:200]!r}")
        for secret in SECRETS:
            assert secret not in value, f"the secret is in the {name} header"
    for secret in SECRETS:
        assert secret.encode() not in response.body, "the secret is in the body"
    assert TRACEBACK not in response.body, "a Python traceback is in the body"

    if 300 <= status < 400:
        assert status == 302, f"unexpected redirect status {status}"
        location = response.header("location")
        assert location, "a redirect without Location"
        check_redirect_target(location, scenario, "Location")

    content_type = (response.header("content-type") or "").lower()
    if "json" in content_type:
        try:
            data = _strict_json(response.body)
        except ValueError as exc:
            pytest.fail(f"the JSON body does not parse ({exc}): {response.body[:200]!r}")
        if scenario.header("x-auth-return-redirect") is not None and isinstance(data, dict):
            url = data.get("url")
            if isinstance(url, str):
                check_redirect_target(url, scenario, "X-Auth-Return-Redirect url")
    elif "text/html" in content_type:
        html = response.body.decode("utf-8")
        assert "<script>alert(1)" not in html, "a script from the request is in the page"
        assert not re.search(
            r"""(href|src|action)\s*=\s*["']?\s*(javascript|data):""", html, re.I
        ), "a javascript:/data: URL is in the page"

    if len(scenario.body) > MAX_BODY:
        assert status in (400, 413), f"a {len(scenario.body)}-byte body got {status}"
    if status == 413:
        assert len(scenario.body) > MAX_BODY, "413 for a body within max_body_size"
    check_action_contract(scenario, response)


def is_body_refusal(data: Any) -> bool:
    """``{"message": …}``: the answer to a body that cannot be read (bad UTF-8, bad JSON)."""
    return isinstance(data, dict) and list(data) == ["message"] and isinstance(data["message"], str)


def check_action_contract(scenario: Scenario, response: Response) -> None:
    """For a request whose path names an action cleanly, the answer that action always
    gives (reference §2.3), whatever the cookies, query and body hold."""
    if scenario.action is None or response.status in (413, 500):
        return
    if has_invalid_callback_url(scenario) and response.status == 400:
        return  # refused before the action ran
    method = scenario.method.upper()
    status = response.status
    data: Any = None
    if "json" in (response.header("content-type") or ""):
        data = _strict_json(response.body)
    if method == "POST" and status == 400 and is_body_refusal(data):
        return
    what = f"{method} {scenario.action}"
    if (method, scenario.action) == ("GET", "session"):
        assert status == 200, f"{what} answered {status} {response.header('location')}"
        assert data is None or (isinstance(data, dict) and "expires" in data), data
    elif (method, scenario.action) == ("GET", "csrf"):
        assert status == 200, f"{what} answered {status}"
        assert isinstance(data, dict)
        # 64 hex digits when issued; a cookie minted with the secret keeps its own token.
        assert isinstance(data["csrfToken"], str)
        assert data["csrfToken"]
    elif (method, scenario.action) == ("GET", "providers"):
        assert status == 200, f"{what} answered {status}"
        assert isinstance(data, dict)
        assert list(data) == ["credentials"]
    elif (method, scenario.action) == ("POST", "session"):
        assert status in (200, 400), f"{what} answered {status}"
        if status == 400:
            assert data is None
    elif (method, scenario.action) == ("POST", "signout"):
        return_redirect = scenario.header("x-auth-return-redirect") is not None
        assert status == (200 if return_redirect else 302), f"{what} answered {status}"


# ---------------------------------------------------------------------------------------------
# The authui logger during the fuzz: quiet, but still formatting every record, and checked.


class LogSink(logging.Filter):
    """A logger filter that formats each record (tracebacks included), remembers what must
    never be logged, and drops the record, so that no handler (pytest's included) sees it."""

    def __init__(self) -> None:
        super().__init__()
        self.formatter = logging.Formatter("%(levelname)s %(name)s %(message)s")
        self.records = 0
        self.problems: list[str] = []

    def filter(self, record: logging.LogRecord) -> bool:
        self.records += 1
        try:
            text = self.formatter.format(record)
        except Exception as exc:
            self.problems.append(f"a log record does not format: {exc!r}")
            return False
        self.problems.extend(
            f"the secret is in a log record: {text[:200]!r}" for s in SECRETS if s in text
        )
        return False


@pytest.fixture
def quiet_authui_log() -> Iterator[LogSink]:
    """Silence the ``authui`` logger (authui logs an error for most bad requests, by
    design) through a :class:`LogSink`, then check what it saw."""
    logger = logging.getLogger("authui")
    sink = LogSink()
    saved_level = logger.level
    logger.setLevel(logging.INFO)
    logger.addFilter(sink)
    try:
        yield sink
    finally:
        logger.removeFilter(sink)
        logger.setLevel(saved_level)
    assert not sink.problems, sink.problems[:5]


# ---------------------------------------------------------------------------------------------
# The fuzz tests.


def exercise(scenario: Scenario, name: str) -> None:
    """Send one generated request and check the answer."""
    check_response(scenario, send_scenario(scenario, name))


# One @given function per test, so that each has its own entry in Hypothesis's database.


@FUZZ
@given(scenario=routing_scenarios())
def fuzz_routing(scenario: Scenario) -> None:
    exercise(scenario, "routing")


@FUZZ
@given(scenario=cookie_scenarios())
def fuzz_cookies(scenario: Scenario) -> None:
    exercise(scenario, "cookies")


@FUZZ
@given(scenario=body_scenarios())
def fuzz_bodies(scenario: Scenario) -> None:
    exercise(scenario, "bodies")


@FUZZ
@given(scenario=redirect_scenarios())
def fuzz_redirects(scenario: Scenario) -> None:
    exercise(scenario, "redirects")


def run_fuzz(name: str, fuzz: Callable[[], None]) -> None:
    """Run one fuzz function; it must have sent ``EXAMPLES_PER_TEST`` requests or more."""
    before = SENT.get(name, 0)
    fuzz()
    sent = SENT.get(name, 0) - before
    assert sent >= EXAMPLES_PER_TEST, f"only {sent} requests were sent"


def test_fuzz_routing(quiet_authui_log: LogSink) -> None:
    """Any method, path, query, headers and small body."""
    run_fuzz("routing", fuzz_routing)
    assert quiet_authui_log.records > 0


def test_fuzz_cookies(quiet_authui_log: LogSink) -> None:
    """Real actions with forged, expired, chunked, huge and malformed cookies."""
    run_fuzz("cookies", fuzz_cookies)


def test_fuzz_bodies(quiet_authui_log: LogSink) -> None:
    """POSTs past a valid CSRF check with every kind of body, oversized ones included."""
    run_fuzz("bodies", fuzz_bodies)


def test_fuzz_redirects(quiet_authui_log: LogSink) -> None:
    """Hostile ``callbackUrl`` values in the query, the body and the cookie."""
    run_fuzz("redirects", fuzz_redirects)


def test_the_fuzz_tests_send_at_least_2000_requests() -> None:
    """Each ``test_fuzz_*`` fails unless it sent ``EXAMPLES_PER_TEST`` requests through
    ``Auth()``; together they send at least ``MIN_TOTAL``."""
    fuzz_tests = [name for name in globals() if name.startswith("test_fuzz_")]
    assert len(fuzz_tests) == FUZZ_TESTS
    assert FUZZ_TESTS * EXAMPLES_PER_TEST >= MIN_TOTAL


# ---------------------------------------------------------------------------------------------
# Explicit cases.

ORIGIN = "http://localhost:3000"
TOKEN = "a" * 64
FORM = "application/x-www-form-urlencoded"


def request(
    method: str,
    path: str,
    *,
    headers: dict[str, str] | None = None,
    body: bytes | str = b"",
) -> Request:
    return Request.build(method, ORIGIN + path, headers=headers or {}, body=body)


def csrf_headers(content_type: str = FORM, **cookies: str) -> dict[str, str]:
    jar = {PLAIN_NAMES.csrf: csrf_cookie(TOKEN), **cookies}
    return {"Content-Type": content_type, "Cookie": "; ".join(f"{k}={v}" for k, v in jar.items())}


def set_cookies(response: Response) -> dict[str, str]:
    """``Set-Cookie`` headers by cookie name."""
    return {v.partition("=")[0]: v for v in response.header_all("set-cookie")}


def checked(req: Request, site: Site = PLAIN) -> Response:
    """Send ``req`` and apply the fuzz checks to the answer too."""
    response = send(req, site)
    scenario = Scenario(
        site=site,
        origin=ORIGIN,
        method=req.method,
        url=req.url,
        headers=req.headers.items_all(),
        body=req.body,
    )
    check_response(scenario, response)
    return response


def test_non_utf8_body_is_400_with_a_message() -> None:
    req = request("POST", "/auth/signin", headers=csrf_headers(), body=b"csrfToken=\xff\xfe")
    response = checked(req)
    assert response.status == 400
    assert response.header("content-type") == "application/json"
    assert response.data() == {"message": "The request body is not valid UTF-8."}


def test_oversized_body_is_413() -> None:
    body = b"csrfToken=" + TOKEN.encode() + b"&pad=" + b"a" * MAX_BODY
    response = checked(request("POST", "/auth/signout", headers=csrf_headers(), body=body))
    assert response.status == 413
    assert response.data() == {"message": "The request body is too large."}
    assert response.header_all("set-cookie") == []


def test_body_of_exactly_max_size_is_read() -> None:
    head = f"csrfToken={TOKEN}&pad=".encode()
    body = head + b"a" * (MAX_BODY - len(head))
    response = checked(request("POST", "/auth/signout", headers=csrf_headers(), body=body))
    assert response.status == 302
    assert response.header("location") == ORIGIN


def test_bad_json_is_400() -> None:
    req = request("POST", "/auth/session", headers=csrf_headers("application/json"), body="{")
    response = checked(req)
    assert response.status == 400
    assert response.data() == {"message": "The request body is not valid JSON."}


def test_json_that_is_not_an_object_is_400() -> None:
    req = request("POST", "/auth/session", headers=csrf_headers("application/json"), body="[1]")
    response = checked(req)
    assert response.status == 400
    assert response.data() == {"message": "The JSON request body must be an object."}


def _assert_session_cleared(response: Response, name: str = PLAIN_NAMES.session) -> None:
    assert response.status == 200
    assert response.data() is None
    cookie = set_cookies(response).get(name)
    assert cookie is not None, response.headers
    assert cookie.startswith(f"{name}=;")
    assert "Max-Age=0" in cookie


def test_forged_session_token_gives_null_and_clears_the_cookie(
    caplog: pytest.LogCaptureFixture,
) -> None:
    forged = mint_session(USER, salt=PLAIN_NAMES.session, secret=OTHER_SECRET)
    headers = {"Cookie": f"{PLAIN_NAMES.session}={forged}"}
    with caplog.at_level(logging.ERROR, logger="authui"):
        response = checked(request("GET", "/auth/session", headers=headers))
    _assert_session_cleared(response)
    assert any("JWTSessionError" in r.getMessage() for r in caplog.records)
    assert not any(forged in r.getMessage() for r in caplog.records)


def test_tampered_session_token_gives_null_and_clears_the_cookie() -> None:
    valid = mint_session(USER, salt=PLAIN_NAMES.session)
    tampered = valid[:-6] + ("AAAAAA" if not valid.endswith("AAAAAA") else "BBBBBB")
    headers = {"Cookie": f"{PLAIN_NAMES.session}={tampered}"}
    _assert_session_cleared(checked(request("GET", "/auth/session", headers=headers)))


def test_expired_session_token_gives_null_and_clears_the_cookie() -> None:
    expired = mint_session(USER, salt=PLAIN_NAMES.session, max_age=-3600)
    headers = {"Cookie": f"{PLAIN_NAMES.session}={expired}"}
    _assert_session_cleared(checked(request("GET", "/auth/session", headers=headers)))


def test_session_token_for_the_other_cookie_mode_gives_null() -> None:
    # A token made for __Secure-authjs.session-token (the salt) sent as authjs.session-token.
    token = mint_session(USER, salt=SECURE_NAMES.session)
    headers = {"Cookie": f"{PLAIN_NAMES.session}={token}"}
    _assert_session_cleared(checked(request("GET", "/auth/session", headers=headers)))


def test_chunked_forged_session_clears_every_chunk() -> None:
    name = SECURE_NAMES.session
    headers = {"Cookie": f"{name}.0=abc; {name}.1=def"}
    req = Request.build("GET", "https://app.example.com/api/auth/session", headers=headers)
    response = send(req, SECURE)
    assert response.status == 200
    assert response.data() is None
    cookies = set_cookies(response)
    for chunk in (f"{name}.0", f"{name}.1"):
        assert "Max-Age=0" in cookies[chunk]


def test_valid_session_token_is_accepted() -> None:
    token = mint_session(USER, salt=PLAIN_NAMES.session)
    headers = {"Cookie": f"{PLAIN_NAMES.session}={token}"}
    response = checked(request("GET", "/auth/session", headers=headers))
    assert response.status == 200
    assert response.data()["user"] == {"name": USER["name"], "email": USER["email"]}


def test_foreign_callback_url_on_signout_redirects_to_own_origin() -> None:
    query = urlencode({"callbackUrl": "https://evil.com/x"})
    req = request(
        "POST", f"/auth/signout?{query}", headers=csrf_headers(), body=f"csrfToken={TOKEN}"
    )
    response = checked(req)
    assert response.status == 302
    assert response.header("location") == ORIGIN


def test_foreign_callback_url_in_body_with_return_redirect_header() -> None:
    headers = {**csrf_headers(), "X-Auth-Return-Redirect": "1"}
    body = urlencode({"csrfToken": TOKEN, "callbackUrl": "//evil.com"})
    response = checked(request("POST", "/auth/signout", headers=headers, body=body))
    assert response.status == 200
    assert response.data() == {"url": f"{ORIGIN}//evil.com"}


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "BREW"])
def test_other_methods_are_bad_requests(method: str) -> None:
    response = checked(request(method, "/auth/session"))
    assert response.status == 400
    assert response.data() == "Bad request."


def test_credentials_sign_in_succeeds_and_fails_as_expected() -> None:
    good = urlencode({"csrfToken": TOKEN, "password": PASSWORD, "callbackUrl": "/home"})
    response = checked(
        request("POST", "/auth/callback/credentials", headers=csrf_headers(), body=good)
    )
    assert response.status == 302
    assert response.header("location") == f"{ORIGIN}/home"
    assert PLAIN_NAMES.session in set_cookies(response)

    bad = urlencode({"csrfToken": TOKEN, "password": "nope"})
    response = checked(
        request("POST", "/auth/callback/credentials", headers=csrf_headers(), body=bad)
    )
    assert response.status == 302
    assert response.header("location") == (
        f"{ORIGIN}/auth/signin?error=CredentialsSignin&code=credentials"
    )


def test_invalid_callback_url_is_the_clients_error() -> None:
    query = urlencode({"callbackUrl": "javascript:alert(1)"})
    response = checked(request("GET", f"/auth/session?{query}"))
    assert response.status == 400
    assert response.data() == {
        "message": "The callbackUrl must be a path or an absolute http(s) URL."
    }


# ---------------------------------------------------------------------------------------------
# Bugs the fuzz found: each request below made Auth() fail. They stay as plain tests of the
# right behaviour.


def test_empty_callback_url_query_is_not_a_configuration_error() -> None:
    """``?callbackUrl=`` answered 500: Auth.js skips an empty value (``callbackUrlParam &&
    !isValidHttpUrl(...)``); authui checks ``is not None``."""
    response = checked(request("GET", "/auth/session?callbackUrl="))
    assert response.status == 200
    assert response.data() is None


def test_empty_callback_url_on_a_page_is_not_a_configuration_error() -> None:
    response = checked(request("GET", "/auth/signin?callbackUrl="))
    assert response.status == 200


@pytest.mark.parametrize(
    "cookie",
    [
        f"{PLAIN_NAMES.csrf}=abc|%C3%A9",
        f"{PLAIN_NAMES.csrf}=abc|\u00e9",
        f"{PLAIN_NAMES.csrf}={TOKEN}|caf\u00e9",
    ],
)
def test_non_ascii_csrf_cookie_is_replaced(cookie: str) -> None:
    """A non-ASCII digest in the CSRF cookie raised ``TypeError: comparing strings with
    non-ASCII characters is not supported`` (``hmac.compare_digest`` on ``str``) out of
    ``create_csrf_state``, outside any handler."""
    response = checked(request("GET", "/auth/csrf", headers={"Cookie": cookie}))
    assert response.status == 200
    token = response.data()["csrfToken"]
    assert re.fullmatch(r"[0-9a-f]{64}", token)
    assert PLAIN_NAMES.csrf in set_cookies(response)


def test_non_ascii_csrf_cookie_on_post_is_missing_csrf() -> None:
    headers = {"Content-Type": FORM, "Cookie": f"{PLAIN_NAMES.csrf}=abc|%C3%A9"}
    response = checked(request("POST", "/auth/signout", headers=headers, body="csrfToken=abc"))
    assert response.status == 302
    assert response.header("location") == f"{ORIGIN}/auth/signin?error=MissingCSRF"


@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_deeply_nested_json_body_is_400(opener: str) -> None:
    """JSON nested deeper than Python's recursion limit raised ``RecursionError`` (not a
    ``ValueError``) out of ``Request.form``; a 5 kB body is enough."""
    closer = "]" if opener == "[" else "}"
    body = opener * 5000 + "1" + closer * 5000
    headers = csrf_headers("application/json")
    response = checked(request("POST", "/auth/session", headers=headers, body=body))
    assert response.status == 400
    assert response.data() == {"message": "The request body is not valid JSON."}


def test_lone_surrogate_csrf_token_in_json_body() -> None:
    """``{"csrfToken": "\\ud800"}`` (valid JSON) raised ``UnicodeEncodeError`` from
    ``body_token.encode()`` in ``create_csrf_state``. Refusing such a body (400) or
    treating the token as wrong (MissingCSRF) are both fine."""
    headers = csrf_headers("application/json")
    body = json.dumps({"csrfToken": "\ud800"})
    response = checked(request("POST", "/auth/signout", headers=headers, body=body))
    if response.status == 302:
        assert response.header("location") == f"{ORIGIN}/auth/signin?error=MissingCSRF"
    else:
        assert response.status == 400


@pytest.mark.parametrize("return_redirect", [False, True])
def test_lone_surrogate_callback_url_in_json_body(return_redirect: bool) -> None:
    """``{"callbackUrl": "/\\ud800"}`` raised ``UnicodeEncodeError`` while serialising the
    callback-url cookie (``Cookie.serialize``) and, with ``X-Auth-Return-Redirect``, the
    ``{"url": …}`` body: both in ``to_response``, after every handler. A 400 for the body
    is fine too."""
    headers = csrf_headers("application/json")
    if return_redirect:
        headers["X-Auth-Return-Redirect"] = "1"
    body = json.dumps({"csrfToken": TOKEN, "callbackUrl": "/\ud800"})
    response = checked(request("POST", "/auth/signout", headers=headers, body=body))
    assert response.status in (400, 200 if return_redirect else 302)


@pytest.mark.parametrize(
    "callback_url",
    [
        "http://evil.com\\@localhost:3000/",
        "http://evil.com\\\\@localhost:3000/x",
        "http://evil.com\\x@localhost:3000",
    ],
)
@pytest.mark.parametrize("where", ["query", "body", "cookie"])
def test_backslash_callback_url_does_not_leave_the_site(callback_url: str, where: str) -> None:
    """Open redirect: ``urlsplit`` reads ``http://evil.com\\@localhost:3000/`` as host
    ``localhost:3000`` (so ``default_redirect`` allowed it), but browsers treat ``\\`` as
    ``/`` in http(s) URLs and go to ``evil.com``."""
    path = "/auth/signout"
    body = {"csrfToken": TOKEN}
    cookies: dict[str, str] = {}
    if where == "query":
        path += "?" + urlencode({"callbackUrl": callback_url})
    elif where == "body":
        body["callbackUrl"] = callback_url
    else:
        cookies[PLAIN_NAMES.callback] = quote(callback_url, safe="")
    headers = csrf_headers(FORM, **cookies)
    response = checked(request("POST", path, headers=headers, body=urlencode(body)))
    assert response.status == 302


@pytest.mark.parametrize(
    "callback_url", ["/\r\nSet-Cookie: injected=1", "/x\nLocation: https://evil.com", "/\0"]
)
def test_control_characters_in_callback_url_stay_out_of_location(callback_url: str) -> None:
    """Response splitting: a ``callbackUrl`` path with CR/LF went into ``Location`` as is."""
    query = urlencode({"callbackUrl": callback_url})
    req = request(
        "POST", f"/auth/signout?{query}", headers=csrf_headers(), body=f"csrfToken={TOKEN}"
    )
    response = checked(req)
    assert response.status == 302


def test_non_latin1_callback_url_is_percent_encoded_in_location() -> None:
    """``Location`` carried raw ``/日本`` (from ``?callbackUrl=/%E6%97%A5%E6%9C%AC``), which
    no WSGI/ASGI server can send: header values are Latin-1 bytes. Percent-encoding it, or
    falling back to the origin, are both fine."""
    query = urlencode({"callbackUrl": "/\u65e5\u672c"})
    req = request(
        "POST", f"/auth/signout?{query}", headers=csrf_headers(), body=f"csrfToken={TOKEN}"
    )
    response = checked(req)
    assert response.status == 302
    location = response.header("location")
    assert location is not None
    assert unquote(location) in (f"{ORIGIN}/\u65e5\u672c", ORIGIN)


HUGE_CHUNK = f"{PLAIN_NAMES.session}.{'1' * 4301}"
"""A session chunk cookie whose index has more digits than ``int()`` converts (4,300)."""


def test_session_chunk_with_a_huge_index_gives_null() -> None:
    """``SessionChunks.value`` calls ``int()`` on the chunk index, which raises
    ``ValueError`` past 4,300 digits, before the strategy's ``try``: GET /session answered
    302 to ``/auth/error?error=Configuration`` instead of 200 ``null``."""
    response = checked(request("GET", "/auth/session", headers={"Cookie": f"{HUGE_CHUNK}=abc"}))
    assert response.status == 200
    assert response.data() is None


def test_session_chunk_with_a_huge_index_does_not_block_sign_out() -> None:
    """The same cookie made every sign-out fail (302 to the Configuration error page),
    so the session cookies could not be cleared."""
    valid = mint_session(USER, salt=PLAIN_NAMES.session)
    cookies = {HUGE_CHUNK: "abc", PLAIN_NAMES.session: valid}
    headers = csrf_headers(FORM, **cookies)
    response = checked(request("POST", "/auth/signout", headers=headers, body=f"csrfToken={TOKEN}"))
    assert response.status == 302
    assert response.header("location") == ORIGIN


def test_get_token_with_a_huge_chunk_index_is_none() -> None:
    """``get_token`` promises ``None`` for anything it cannot decode; it raised
    ``ValueError`` here."""
    req = request("GET", "/", headers={"Cookie": f"{HUGE_CHUNK}=abc"})
    assert get_token(req, secret=SECRET) is None


# ---------------------------------------------------------------------------------------------
# The checker itself.


@pytest.mark.parametrize(
    ("location", "expected"),
    [
        ("/x", "http://localhost:3000"),
        ("http://localhost:3000/x", "http://localhost:3000"),
        ("HTTP://LOCALHOST:3000", "http://localhost:3000"),
        ("//evil.com", "http://evil.com"),
        ("/\\evil.com", "http://evil.com"),
        ("http://evil.com\\@localhost:3000/", "http://evil.com"),
        ("http://localhost:3000@evil.com", "http://evil.com"),
        ("https://evil.com#@localhost:3000", "https://evil.com"),
        ("http:evil.com", "http://localhost:3000"),
        ("https:evil.com", "https://evil.com"),
        ("javascript:alert(1)", "unsafe:javascript"),
        (" \thttp://evil.com", "http://evil.com"),
        ("https://app.example.com:443/", "https://app.example.com"),
        ("http://[::1]:8080/x", "http://[::1]:8080"),
    ],
)
def test_browser_origin_model(location: str, expected: str) -> None:
    assert browser_origin(location, "http://localhost:3000") == expected
