"""Adapter records as JSON objects with the Auth.js field names (``emailVerified``,
``userId``, ``providerAccountId``, ``credentialID``; OAuth's own ``access_token`` …), for
stores that keep JSON (Redis). Dates are ISO 8601 strings with a UTC offset, a
``tuple[str, ...]`` an array of strings and a ``Mapping[str, str]`` an object of strings;
reading checks every field's type against the record's annotations."""

from __future__ import annotations

import dataclasses
import json
import types
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

from authui.adapters.token_refresh import ACCOUNT_TOKEN_FIELDS

R = TypeVar("R")

OAUTH_FIELDS = frozenset(ACCOUNT_TOKEN_FIELDS)
"""Record fields that keep their OAuth names in Auth.js's records (no camelCase)."""
SPECIAL_NAMES = {"credential_id": "credentialID"}


def authjs_name(field: str) -> str:
    """The Auth.js name of a record field: camelCase, but OAuth's fields keep theirs."""
    if field in SPECIAL_NAMES:
        return SPECIAL_NAMES[field]
    if field in OAUTH_FIELDS:
        return field
    head, *rest = field.split("_")
    return head + "".join(part.title() for part in rest)


def utc(value: datetime) -> datetime:
    """``value`` in UTC (a naive value is taken to be UTC)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def dump_record(record: Any) -> str:
    """The record as a compact JSON object."""
    values = {}
    for field in dataclasses.fields(record):
        value = getattr(record, field.name)
        if isinstance(value, datetime):
            value = utc(value).isoformat()
        elif isinstance(value, Mapping):
            value = dict(value)
        values[authjs_name(field.name)] = value
    return json.dumps(values, separators=(",", ":"))


def load_record(cls: type[R], text: str | None) -> R | None:
    """The record in ``text`` (``None`` stays ``None``).

    Raises:
        TypeError: The JSON is not an object, or a field is missing or of the wrong type.
    """
    if text is None:
        return None
    data = json.loads(text)
    if not isinstance(data, dict):
        raise TypeError(f"expected a JSON object, got {text!r}")
    values = {field.name: field.check(data.get(field.key)) for field in _fields(cls)}
    return cls(**values)


@dataclasses.dataclass(frozen=True, slots=True)
class _Field:
    """A record field as ``load_record`` reads it: its JSON key and its annotation taken
    apart once per record class."""

    name: str
    key: str
    optional: bool
    expected: Any
    choices: tuple[object, ...] | None  # a ``Literal``'s values
    origin: object  # ``tuple`` for ``tuple[str, ...]``, ``Mapping`` for ``Mapping[str, str]``

    def check(self, value: object) -> object:
        name, expected = self.name, self.expected
        if value is None:
            if self.optional:
                return None
            raise TypeError(f"{name}: missing")
        if expected is datetime:
            if not isinstance(value, str):
                raise TypeError(f"{name}: expected an ISO 8601 date, got {value!r}")
            return utc(datetime.fromisoformat(value))
        if self.origin is tuple:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise TypeError(f"{name}: expected an array of strings, got {value!r}")
            return tuple(value)
        if self.origin is Mapping:
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise TypeError(f"{name}: expected an object of strings, got {value!r}")
            return value
        if self.choices is not None:
            if value not in self.choices:
                raise TypeError(f"{name}: expected one of {self.choices}, got {value!r}")
            return value
        if expected is int and isinstance(value, bool):
            raise TypeError(f"{name}: expected an integer, got {value!r}")
        if not isinstance(value, expected):
            raise TypeError(f"{name}: expected {expected.__name__}, got {value!r}")
        return value


_FIELDS: dict[object, tuple[_Field, ...]] = {}


def _fields(cls: object) -> tuple[_Field, ...]:
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = _taken_apart(cls)
    return found


def _taken_apart(cls: Any) -> tuple[_Field, ...]:
    hints = get_type_hints(cls)
    fields = []
    for field in dataclasses.fields(cls):
        hint = hints[field.name]
        args = get_args(hint)
        optional = get_origin(hint) in (Union, types.UnionType) and type(None) in args
        expected = next(a for a in args if a is not type(None)) if optional else hint
        origin = get_origin(expected)
        choices = get_args(expected) if origin is Literal else None
        fields.append(
            _Field(field.name, authjs_name(field.name), optional, expected, choices, origin)
        )
    return tuple(fields)
