"""A JSON request body, parsed once at the edge with bounded nesting.

`json.loads` recurses per level and raises RecursionError around 1,000 levels (a 10 KB body);
values that deep would also exhaust the stack later (graphql-core coercion, the Neo4j driver).
Bodies are refused before parsing when their brackets nest deeper than MAX_NESTING, measured in
one linear pass: strings are removed by a pattern that never backtracks and never fails once it
met a quote (an unterminated string runs to the end of the text), so no body makes it rescan,
then the brackets left are counted. Bodies with too few brackets to nest that deep skip it.

Numbers must be finite: Python reads `1e999` as infinity, which JSON cannot write back (stored,
it made later answers invalid JSON), and NaN and Infinity are not JSON at all.
"""

from __future__ import annotations

import codecs
import json
import math
import re
from itertools import accumulate
from typing import Any, NamedTuple, NoReturn

from starlette.types import Scope

from app.api.edge.asgi import headers_of
from app.domain.kernel.request_facts import note_body

# Far above what a request needs (JSON scalars allow `max_json_depth` <= 64 levels inside a few
# levels of input objects), far below the interpreter's recursion limit.
MAX_NESTING = 100
# Possessive quantifiers (nothing to backtrack into) and an optional closing quote: each string,
# terminated or not, is matched once, from its opening quote, in C.
_STRING = re.compile(r'"[^"\\]*+(?:\\.?[^"\\]*+)*+"?', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_STATE_KEY = "json_body"
EXPECTED = 'send one JSON object such as {"query": "...", "variables": {...}}'


class BadBody(Exception):
    """The body of a JSON request cannot be used: answered 400 BAD_REQUEST."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ParsedBody(NamedTuple):  # a tuple: made per request, at a third of a dataclass's cost
    """A request body and what parsing it gave: its value, or why it cannot be used."""

    body: bytes
    value: Any = None
    error: BadBody | None = None


def is_json(scope: Scope) -> bool:
    """Whether the request says its body is JSON (as strawberry's view decides it)."""
    content_type = headers_of(scope).get(b"content-type", b"")
    return b"application/json" in content_type.split(b";")[0].strip().lower()


def parsed_body(scope: Scope, body: bytes) -> ParsedBody:
    """The body parsed, kept in the request's state: the key check, the GraphQL view and
    strawberry's view (a batch) parse a body once."""
    state = scope.setdefault("state", {})
    parsed: ParsedBody | None = state.get(_STATE_KEY)
    if parsed is None or parsed.body != body:
        try:
            parsed = ParsedBody(body, value=parse_json(body))
        except BadBody as error:
            parsed = ParsedBody(body, error=error)
        state[_STATE_KEY] = parsed
        note_body(parsed.value)  # the access log's request data, sanitised if it is written
    return parsed


def request_json(scope: Scope, body: bytes) -> Any:
    """The parsed body (a JSON object, or an array: a batch) of a request whose content type is
    JSON, else None; BadBody when it is not usable."""
    if not is_json(scope):
        return None
    parsed = parsed_body(scope, body)
    if parsed.error is not None:
        raise parsed.error
    if not isinstance(parsed.value, dict | list):
        raise BadBody(f"the request body is {_json_kind(parsed.value)}; {EXPECTED}")
    return parsed.value


def _json_kind(value: Any) -> str:
    if value is None:
        return "JSON null"
    if isinstance(value, bool):
        return "a JSON boolean"
    return "a JSON string" if isinstance(value, str) else "a JSON number"


def parse_json(body: bytes | str) -> Any:
    """Any JSON value from UTF-8 text nested at most MAX_NESTING levels; BadBody otherwise
    (the request body, or a JSON parameter of a GET request)."""
    text = _utf8_text(body) if isinstance(body, bytes) else body
    if nests_deeper(text, MAX_NESTING):
        raise BadBody(f"the request's JSON nests deeper than {MAX_NESTING} levels")
    try:
        return _DECODER.decode(text)
    except ValueError as error:  # JSONDecodeError, or an integer of over 4,300 digits
        raise BadBody(f"the request is not valid JSON ({error}); {EXPECTED}") from None


def _utf8_text(body: bytes) -> str:
    """As `body.decode("utf-8-sig")` (a byte order mark is dropped), at the speed of the plain
    UTF-8 codec, which is in C (the -sig codec is not)."""
    mark = len(codecs.BOM_UTF8) if body.startswith(codecs.BOM_UTF8) else 0
    try:
        return body[mark:].decode("utf-8")
    except UnicodeDecodeError as error:
        byte = mark + error.start
        raise BadBody(f"the request is not UTF-8 text (byte {byte}); {EXPECTED}") from None


def nests_deeper(text: str, limit: int) -> bool:
    """Whether the arrays and objects of JSON text nest deeper than `limit` (brackets inside
    strings do not count; text after an unterminated string is inside it)."""
    if text.count("[") + text.count("{") <= limit:  # most bodies: no need to look closer
        return False
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0) > limit


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    number = float(text)
    if math.isinf(number):
        raise ValueError(f"the number {text[:40]} is too large; numbers must be finite")
    return number


# Built once (json.loads with options builds a decoder per call). The float check costs only
# bodies that hold floats, about 0.3 µs per float.
_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite)
