"""Framework-free HTTP messages: headers, cookies, query, body parsing (reference §2.1)."""

from __future__ import annotations

import pytest

from authui.cookies import Cookie
from authui.http import (
    BadRequestBody,
    Headers,
    InternalResponse,
    Request,
    Response,
    parse_cookie_header,
)

URL = "https://app.example.com/auth/signin"
JSON = {"content-type": "application/json"}
FORM = {"content-type": "application/x-www-form-urlencoded"}


def post(body: bytes | str, content_type: str | None) -> Request:
    headers = {"Content-Type": content_type} if content_type is not None else {}
    return Request.build("POST", URL, headers=headers, body=body)


# -- Headers --------------------------------------------------------------------------------


def test_headers_lookup_is_case_insensitive_and_returns_the_first_value() -> None:
    headers = Headers([("Content-Type", "text/html"), ("X-Thing", "1"), ("x-thing", "2")])
    assert headers["content-type"] == "text/html"
    assert headers["CONTENT-TYPE"] == "text/html"
    assert headers["X-THING"] == "1"
    assert headers.get("x-Thing") == "1"
    assert "x-thing" in headers
    assert "X-Thing" in headers
    assert "missing" not in headers
    assert headers.get("missing") is None
    assert headers.get("missing", "d") == "d"
    with pytest.raises(KeyError):
        headers["missing"]


def test_headers_get_all_keeps_order_and_len_counts_distinct_names() -> None:
    headers = Headers([("A", "1"), ("b", "x"), ("a", "2"), ("A", "3")])
    assert headers.get_all("a") == ["1", "2", "3"]
    assert headers.get_all("B") == ["x"]
    assert headers.get_all("c") == []
    assert len(headers) == 2
    assert list(headers) == ["a", "b"]
    assert headers.items_all() == (("a", "1"), ("b", "x"), ("a", "2"), ("a", "3"))


def test_headers_from_a_mapping() -> None:
    headers = Headers({"Host": "example.com", "X-Forwarded-Proto": "https"})
    assert headers["host"] == "example.com"
    assert headers["x-forwarded-proto"] == "https"
    assert dict(headers) == {"host": "example.com", "x-forwarded-proto": "https"}


def test_headers_in_lower_case_already_read_as_any_others() -> None:
    pairs = [("host", "example.com"), ("cookie", "a=1"), ("cookie", "b=2")]
    headers = Headers.lower_case(pairs)
    assert headers.items_all() == Headers(pairs).items_all()
    assert headers["Host"] == "example.com"
    assert headers.get_all("Cookie") == ["a=1", "b=2"]


def test_a_request_reads_its_cookies_and_query_once_and_keeps_them() -> None:
    request = Request.build("GET", URL + "?a=1", headers=[("Cookie", "x=1; y=%20")])
    assert request.cookies == {"x": "1", "y": " "}
    assert request.cookies is request.cookies
    assert request.query == {"a": "1"}
    assert request.query is request.query
    assert "Cookie" in (Request.cookies.__doc__ or "")


def test_empty_headers() -> None:
    assert len(Headers()) == 0
    assert list(Headers()) == []


def test_request_build_upper_cases_method_and_encodes_str_body() -> None:
    request = Request.build("post", URL, headers=[("X-A", "1")], body="é")
    assert request.method == "POST"
    assert request.body == "é".encode()
    assert request.headers["x-a"] == "1"


# -- cookies --------------------------------------------------------------------------------


def test_multiple_cookie_headers_are_joined_and_first_occurrence_wins() -> None:
    request = Request.build(
        "GET", URL, headers=[("Cookie", "a=1; b=2"), ("cookie", "a=3; c=4"), ("COOKIE", "d=5")]
    )
    assert request.cookies == {"a": "1", "b": "2", "c": "4", "d": "5"}


def test_request_without_cookie_header_has_no_cookies() -> None:
    assert Request.build("GET", URL).cookies == {}


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("a=1; a=2", {"a": "1"}),
        ("a=1;b=2", {"a": "1", "b": "2"}),
        ("  a = 1 ;  b=2  ", {"a": "1", "b": "2"}),
        ("a=hello%20world%7Cx", {"a": "hello world|x"}),
        ("t=abc%7Cdef", {"t": "abc|def"}),
        ("a=%C3%A9%E2%82%AC", {"a": "é€"}),
        ("a=1+2", {"a": "1+2"}),
        ("a=%zz", {"a": "%zz"}),
        ('a="quoted value"', {"a": "quoted value"}),
        ('a="%7C"', {"a": "|"}),
        ('a="', {"a": '"'}),
        ("a=b=c==", {"a": "b=c=="}),
        ("a=", {"a": ""}),
        ("junk; a=1; =nameless; b=2;;  ; c", {"a": "1", "b": "2"}),
        ("a=1; garbage; b=2", {"a": "1", "b": "2"}),
        ("", {}),
        ("   ", {}),
        (";;;", {}),
    ],
)
def test_parse_cookie_header(header: str, expected: dict[str, str]) -> None:
    assert parse_cookie_header(header) == expected


def test_parse_cookie_header_first_wins_even_after_a_malformed_part() -> None:
    assert parse_cookie_header("s=first; bad; s=second; t=x") == {"s": "first", "t": "x"}


@pytest.mark.parametrize("raw", ["%E9", "%zz%20"])
def test_undecodable_cookie_value_is_kept_raw_like_auth_js(raw: str) -> None:
    assert parse_cookie_header(f"a={raw}") == {"a": raw}


# -- query ----------------------------------------------------------------------------------


def test_query_last_value_wins_and_blank_values_are_kept() -> None:
    request = Request.build("GET", f"{URL}?a=1&b=&a=2&c&d=x")
    assert request.query == {"a": "2", "b": "", "c": "", "d": "x"}


def test_query_is_percent_and_plus_decoded() -> None:
    request = Request.build(
        "GET", f"{URL}?callbackUrl=https%3A%2F%2Fapp.example.com%2Fx%3Fy%3D1&n=a+b&e=%C3%A9"
    )
    assert request.query == {"callbackUrl": "https://app.example.com/x?y=1", "n": "a b", "e": "é"}


def test_query_ignores_the_fragment_and_is_empty_without_query() -> None:
    assert Request.build("GET", f"{URL}?a=1#b=2").query == {"a": "1"}
    assert Request.build("GET", URL).query == {}


# -- form -----------------------------------------------------------------------------------


def test_form_reads_a_json_object() -> None:
    body = '{"csrfToken":"t","data":{"name":"Ada","n":[1,2]},"flag":true,"none":null}'
    assert post(body, "application/json").form() == {
        "csrfToken": "t",
        "data": {"name": "Ada", "n": [1, 2]},
        "flag": True,
        "none": None,
    }


@pytest.mark.parametrize(
    "content_type",
    ["application/json; charset=utf-8", "Application/JSON", "application/json;charset=UTF-8"],
)
def test_form_reads_json_with_parameters_or_other_case(content_type: str) -> None:
    assert post('{"name":"Zoë"}'.encode(), content_type).form() == {"name": "Zoë"}


def test_form_reads_urlencoded_with_last_value_winning() -> None:
    body = "csrfToken=t&a=1&a=2&b=x+y&c=%7C%C3%A9&empty="
    assert post(body, "application/x-www-form-urlencoded").form() == {
        "csrfToken": "t",
        "a": "2",
        "b": "x y",
        "c": "|é",
        "empty": "",
    }


def test_form_reads_urlencoded_with_charset() -> None:
    form = post("a=1", "application/x-www-form-urlencoded; charset=UTF-8").form()
    assert form == {"a": "1"}


@pytest.mark.parametrize(
    "content_type",
    ["multipart/form-data; boundary=x", "text/plain", "application/xml", None],
)
def test_form_ignores_other_content_types(content_type: str | None) -> None:
    assert post('{"a":"1"}', content_type).form() == {}
    assert post("a=1", content_type).form() == {}


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
def test_form_is_empty_for_other_methods(method: str) -> None:
    assert Request.build(method, URL, headers=JSON, body='{"a":1}').form() == {}
    assert Request.build(method, URL, headers=JSON, body="not json").form() == {}


def test_form_of_an_empty_post_is_empty() -> None:
    assert post(b"", "application/json").form() == {}
    assert post(b"", "application/x-www-form-urlencoded").form() == {}


@pytest.mark.parametrize("content_type", ["application/json", "application/x-www-form-urlencoded"])
def test_form_refuses_bad_utf8(content_type: str) -> None:
    with pytest.raises(BadRequestBody, match="UTF-8"):
        post(b'{"a":"\xff\xfe"}', content_type).form()


@pytest.mark.parametrize("body", ['{"a":', "{'a': 1}", " ", "nope", '{"a":1}x', "\ufeff{}"])
def test_form_refuses_bad_json(body: str) -> None:
    request = post(body, "application/json")
    with pytest.raises(BadRequestBody, match="not valid JSON"):
        request.form()


@pytest.mark.parametrize("body", ["[]", '["a"]', '"str"', "1", "1.5", "null", "true"])
def test_form_refuses_json_that_is_not_an_object(body: str) -> None:
    with pytest.raises(BadRequestBody, match="must be an object"):
        post(body, "application/json").form()


def test_bad_request_body_is_a_value_error() -> None:
    assert issubclass(BadRequestBody, ValueError)


def test_form_refuses_deeply_nested_json() -> None:
    with pytest.raises(BadRequestBody):
        post("[" * 5000, "application/json").form()


def test_form_reads_a_post_given_in_lower_case() -> None:
    request = Request("post", URL, Headers(JSON), b'{"a":1}')
    assert request.form() == {"a": 1}


# -- Response -------------------------------------------------------------------------------


def test_response_json_is_compact_and_keeps_non_ascii() -> None:
    response = Response.json(200, {"user": {"name": "Zoë", "tags": [1, 2]}, "expires": None})
    assert response.status == 200
    assert response.body == '{"user":{"name":"Zoë","tags":[1,2]},"expires":null}'.encode()
    assert response.headers == [("Content-Type", "application/json")]
    assert response.text == '{"user":{"name":"Zoë","tags":[1,2]},"expires":null}'
    assert response.data() == {"user": {"name": "Zoë", "tags": [1, 2]}, "expires": None}


def test_response_json_of_a_string_and_null() -> None:
    assert Response.json(400, "Bad request.").body == b'"Bad request."'
    assert Response.json(400, None).body == b"null"


def test_response_json_keeps_extra_headers_before_content_type() -> None:
    response = Response.json(200, {}, [("Cache-Control", "no-store"), ("Set-Cookie", "a=1")])
    assert response.headers == [
        ("Cache-Control", "no-store"),
        ("Set-Cookie", "a=1"),
        ("Content-Type", "application/json"),
    ]
    assert response.body == b"{}"


def test_response_header_lookup() -> None:
    response = Response(
        302,
        [
            ("Location", "https://app.example.com"),
            ("Set-Cookie", Cookie("a", "1").serialize()),
            ("set-cookie", Cookie("b", "2").serialize()),
        ],
    )
    assert response.header("location") == "https://app.example.com"
    assert response.header("LOCATION") == "https://app.example.com"
    assert response.header("SET-COOKIE") == "a=1; Path=/; HttpOnly; SameSite=Lax"
    assert response.header("content-type") is None
    assert response.header_all("Set-Cookie") == [
        "a=1; Path=/; HttpOnly; SameSite=Lax",
        "b=2; Path=/; HttpOnly; SameSite=Lax",
    ]
    assert response.header_all("x-missing") == []
    assert response.body == b""


def test_internal_response_defaults() -> None:
    first = InternalResponse()
    assert first.status == 200
    assert first.headers == []
    assert first.body is None
    assert first.redirect is None
    assert first.cookies == []
    first.headers.append(("X", "1"))
    first.cookies.append(Cookie("a", "1"))
    second = InternalResponse()
    assert second.headers == []
    assert second.cookies == []
