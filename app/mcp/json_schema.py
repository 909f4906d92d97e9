"""JSON Schema for a tool's arguments, made from the GraphQL types of its operation's variables
(the GraphQL schema states each input once; a tool only names which variable it flattens).

Input objects become objects with their fields' descriptions, enums their values, lists arrays;
`ID`, `String` and `DateTime` are strings, `Int` integers, `Float` numbers, `JSON` any value. A
non-null type without a default is required. Every object is closed (`additionalProperties:
false`): a misspelt argument is refused, not ignored.
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Any

from graphql import (
    GraphQLArgument,
    GraphQLEnumType,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLScalarType,
    Undefined,
)

SCALARS: dict[str, dict[str, Any]] = {
    "ID": {"type": "string"},
    "String": {"type": "string"},
    "Boolean": {"type": "boolean"},
    "Int": {"type": "integer"},
    "Float": {"type": "number"},
    "DateTime": {"type": "string", "format": "date-time"},
    "JSON": {},
}
# Deep enough for every input type of the schema; a cycle (none today) stops here.
MAX_DEPTH = 6


def type_schema(kind: GraphQLInputType, depth: int = 0) -> dict[str, Any]:
    """The JSON Schema of a GraphQL input type (null allowed unless it is non-null)."""
    if isinstance(kind, GraphQLNonNull):
        return _named_schema(kind.of_type, depth)
    inner = _named_schema(kind, depth)
    if "type" not in inner:
        return inner
    if "enum" in inner:
        inner["enum"] = [*inner["enum"], None]
    return {**inner, "type": [inner["type"], "null"]}


def _named_schema(kind: Any, depth: int) -> dict[str, Any]:
    if isinstance(kind, GraphQLList):
        return {"type": "array", "items": type_schema(kind.of_type, depth + 1)}
    if isinstance(kind, GraphQLEnumType):
        return {"type": "string", "enum": list(kind.values)}
    if isinstance(kind, GraphQLScalarType):
        return dict(SCALARS.get(kind.name, {}))
    if isinstance(kind, GraphQLInputObjectType):
        return object_schema(kind.fields, depth + 1)
    raise ValueError(f"no JSON Schema for GraphQL type {kind}")


def object_schema(fields: dict[str, GraphQLInputField], depth: int) -> dict[str, Any]:
    if depth > MAX_DEPTH:
        return {"type": "object"}
    properties = {name: field_schema(field, depth) for name, field in fields.items()}
    required = [name for name, field in fields.items() if is_required(field)]
    found: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        found["required"] = required
    return found


def field_schema(field: GraphQLInputField | GraphQLArgument, depth: int = 0) -> dict[str, Any]:
    found = type_schema(field.type, depth)
    if field.description:
        found["description"] = " ".join(field.description.split())
    default = _json_default(field.default_value)
    if default is not None:
        found["default"] = default
    return found


def _json_default(value: Any) -> Any:
    """A GraphQL default as JSON (an enum's name); None when it has none or none in JSON."""
    if value is Undefined or value is None:
        return None
    if isinstance(value, Enum):
        return value.name
    try:
        json.dumps(value)
    except TypeError:
        return None
    return value


def is_required(field: GraphQLInputField | GraphQLArgument) -> bool:
    return isinstance(field.type, GraphQLNonNull) and field.default_value is Undefined
