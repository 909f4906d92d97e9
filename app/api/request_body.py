"""A JSON request body, parsed once at the edge with bounded nesting.

`json.loads` recurses per level and raises RecursionError around 1,000 levels (a 10 KB body);
values that deep would also exhaust the stack later (graphql-core coercion, the Neo4j driver).
Bodies are refused before parsing when their brackets nest deeper than MAX_NESTING: a scan of
the text outside strings (in C, but for a loop over the brackets), skipped when the body holds
too few brackets to nest that deep.
"""

from __future__ import annotations

import json
import re
from typing import Any, NoReturn

from starlette.types import Scope

# Far above what a request needs (JSON scalars allow `max_json_depth` <= 64 levels inside a few
# levels of input objects), far below the interpreter's recursion limit.
MAX_NESTING = 100
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STATE_KEY = "json_body"
EXPECTED = 'send one JSON object such as {"query": "...", "variables": {...}}'


class BadBody(Exception):
    """The body of a JSON request cannot be used: answered 400 BAD_REQUEST."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def is_json(scope: Scope) -> bool:
    """Whether the request says its body is JSON (as strawberry's view decides it)."""
    content_type = dict(scope["headers"]).get(b"content-type", b"")
    return b"application/json" in content_type.split(b";")[0].strip().lower()


def request_json(scope: Scope, body: bytes) -> Any:
    """The parsed body (a JSON object, or an array: a batch) of a request whose content type is
    JSON, else None; BadBody when it is not usable. Kept in the request's state, so the key
    check and the GraphQL view parse a body once."""
    if not is_json(scope):
        return None
    state = scope.setdefault("state", {})
    kept = state.get(_STATE_KEY)
    if kept is None or kept[0] != body:
        try:
            kept = (body, parse_json(body), None)
        except BadBody as error:
            kept = (body, None, error)
        state[_STATE_KEY] = kept
    if kept[2] is not None:
        raise kept[2]
    if not isinstance(kept[1], dict | list):
        raise BadBody(f"the request body is {_json_kind(kept[1])}; {EXPECTED}")
    return kept[1]


def _json_kind(value: Any) -> str:
    if value is None:
        return "JSON null"
    if isinstance(value, bool):
        return "a JSON boolean"
    return "a JSON string" if isinstance(value, str) else "a JSON number"


def parse_json(body: bytes | str) -> Any:
    """Any JSON value from UTF-8 text nested at most MAX_NESTING levels; BadBody otherwise
    (the request body, or a JSON parameter of a GET request)."""
    try:
        text = body.decode("utf-8-sig") if isinstance(body, bytes) else body
    except UnicodeDecodeError as error:
        raise BadBody(f"the request is not UTF-8 text (byte {error.start}); {EXPECTED}") from None
    if nests_deeper(text, MAX_NESTING):
        raise BadBody(f"the request's JSON nests deeper than {MAX_NESTING} levels")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except ValueError as error:  # JSONDecodeError, or an integer of over 4,300 digits
        raise BadBody(f"the request is not valid JSON ({error}); {EXPECTED}") from None


def nests_deeper(text: str, limit: int) -> bool:
    """Whether the arrays and objects of JSON text nest deeper than `limit`."""
    if text.count("[") + text.count("{") <= limit:  # most bodies: no need to look closer
        return False
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    depth = 0
    for char in brackets:
        if char in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number")
