"""Input text checked once, where GraphQL coerces it: every String, ID and JSON input value.

Refused: unpaired UTF-16 surrogates (the Neo4j driver cannot encode them; JSON escapes such as
"\\ud800" produce them), NUL and the other C0 control characters. Tab, newline and carriage
return are kept (free text), and so is escape (U+001B): captured terminal output, such as
tool-call lines, carries ANSI colour sequences. JSON values also may nest only so deep, and their
numbers must be finite (a literal `1e999` reads as infinity, which JSON cannot write back).

graphql-core 3.3 refuses to define a second scalar named String or ID (strawberry's
`scalar_overrides` cannot replace them), so the process-wide built-in String and ID coercers are
wrapped once; the JSON scalar is overridden per schema (its depth is a setting).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from typing import Any

from graphql import GraphQLError, GraphQLID, GraphQLString, Node
from strawberry.scalars import JSON
from strawberry.schema.types.scalar import DEFAULT_SCALAR_REGISTRY
from strawberry.types.scalar import ScalarDefinition

REFUSED = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\ud800-\udfff]")
KEPT_CONTROLS = "tab, newline, carriage return and escape"


class InputRefused(GraphQLError):
    """An input value refused at the edge, with code VALIDATION. graphql-core prefixes the
    message with the variable and the path of the value; app/api/edge/literal_rule.py does the same
    with the argument for a value written in the document."""

    def __init__(self, message: str, node: Node | None = None) -> None:
        super().__init__(message, node, extensions={"code": "VALIDATION"})


def check_text(value: str) -> str:
    found = REFUSED.search(value)
    if found is None:
        return value
    char = found.group()
    kind = "an unpaired UTF-16 surrogate" if "\ud800" <= char <= "\udfff" else "a control character"
    raise InputRefused(
        f"text holds {kind} (U+{ord(char):04X}) at character {found.start()}; send valid "
        f"Unicode without control characters other than {KEPT_CONTROLS}"
    )


def check_json(value: Any, *, max_depth: int) -> Any:
    """Every key, string and number of a JSON value checked, and its nesting bounded (without
    recursion: the value may be as deep as the request body allows)."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            check_text(item)
            continue
        if isinstance(item, float) and not math.isfinite(item):
            raise InputRefused(f"JSON value holds the number {item}; send finite numbers")
        if not isinstance(item, dict | list):
            continue
        if depth > max_depth:
            raise InputRefused(
                f"JSON value nests deeper than {max_depth} levels; send a flatter value"
            )
        if isinstance(item, dict):
            pending.extend((key, depth) for key in item)
            pending.extend((child, depth + 1) for child in item.values())
        else:
            pending.extend((child, depth + 1) for child in item)
    return value


def json_scalar(max_depth: int) -> ScalarDefinition:
    """strawberry's JSON scalar (same name, description and printed schema) whose input values,
    variables and literals alike, are checked."""
    default = DEFAULT_SCALAR_REGISTRY[JSON]

    def parse_value(value: Any) -> Any:
        return check_json(value, max_depth=max_depth)

    return dataclasses.replace(default, parse_value=parse_value, implementation=None)


def guard_builtin_text_scalars() -> None:
    """Wraps the input coercion of graphql-core's String and ID scalars (once per process)."""
    for scalar in (GraphQLString, GraphQLID):
        if getattr(scalar.coerce_input_value, "checks_text", False):
            continue
        scalar.coerce_input_value = _checked(scalar.coerce_input_value)
        scalar.parse_value = scalar.coerce_input_value  # type: ignore[method-assign]
        if scalar.coerce_input_literal is not None:
            scalar.coerce_input_literal = _checked(scalar.coerce_input_literal)


def _checked(coerce: Callable[..., Any]) -> Callable[..., Any]:
    def checked(*args: Any) -> Any:
        value = coerce(*args)
        return check_text(value) if isinstance(value, str) else value

    checked.checks_text = True  # type: ignore[attr-defined]
    return checked
