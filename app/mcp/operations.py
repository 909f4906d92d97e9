"""A tool's GraphQL document and its arguments' JSON Schema, both made from its root field in the
GraphQL schema, and the call's arguments turned into the document's variables.

The document passes every argument the tool offers as a variable of the same name; a flattened
input object's fields are the tool's top-level arguments (`remember(text=..., kind=...)`, not
`remember(input={...})`), put back under the input's name here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from graphql import (
    GraphQLArgument,
    GraphQLInputObjectType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    Undefined,
)

from app.mcp.catalogue import ToolSpec
from app.mcp.json_schema import field_schema, is_required

TOKEN_BUDGET = "tokenBudget"
DEFAULT_TOKEN_BUDGET = 2000
BUDGET_SCHEMA = {
    "type": "integer",
    "minimum": 50,
    "maximum": 100_000,
    "default": DEFAULT_TOKEN_BUDGET,
    "description": "The most tokens the result may take (about 4 characters each); longer "
    "lists are cut from the end and `truncated` is set.",
}


@dataclass(frozen=True)
class Operation:
    spec: ToolSpec
    document: str
    input_schema: dict[str, Any]
    flattened: frozenset[str]  # the argument names that belong in the flattened input

    def variables(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The document's variables from a call's (valid) arguments and the tool's defaults."""
        given = {**self.spec.defaults, **arguments}
        given.pop(TOKEN_BUDGET, None)
        if self.spec.flatten is None:
            return given
        inner = {k: v for k, v in given.items() if k in self.flattened}
        outer = {k: v for k, v in given.items() if k not in self.flattened}
        return {**outer, self.spec.flatten: inner}


def build(spec: ToolSpec, schema: GraphQLSchema) -> Operation:
    root, kind = _root(schema, spec.root)
    field = root.fields[spec.root]
    offered = {n: a for n, a in field.args.items() if n not in spec.omit}
    properties: dict[str, Any] = {}
    required: list[str] = []
    flattened: frozenset[str] = frozenset()
    for name, argument in offered.items():
        if name == spec.flatten:
            fields = {n: f for n, f in _input_fields(argument).items() if n not in spec.omit}
            flattened = frozenset(fields)
            for inner, inner_field in fields.items():
                _add(properties, required, inner, inner_field, spec)
        else:
            _add(properties, required, name, argument, spec)
    if spec.budgeted:
        properties[TOKEN_BUDGET] = BUDGET_SCHEMA
    input_schema = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "examples": [spec.example],
    }
    if required:
        input_schema["required"] = sorted(required)
    return Operation(spec, _document(kind, spec, offered), input_schema, flattened)


def _root(schema: GraphQLSchema, name: str) -> tuple[GraphQLObjectType, str]:
    for kind, root in (("query", schema.query_type), ("mutation", schema.mutation_type)):
        if root is not None and name in root.fields:
            return root, kind
    raise ValueError(f"no root field {name!r} in the GraphQL schema")


def _input_fields(argument: GraphQLArgument) -> dict[str, Any]:
    kind = argument.type.of_type if isinstance(argument.type, GraphQLNonNull) else argument.type
    if not isinstance(kind, GraphQLInputObjectType):
        raise ValueError(f"only an input object can be flattened, not {kind}")
    return dict(kind.fields)


def _add(
    properties: dict[str, Any], required: list[str], name: str, arg: Any, spec: ToolSpec
) -> None:
    if name in properties:
        raise ValueError(f"tool {spec.name}: argument {name!r} is offered twice")
    schema = field_schema(arg)
    if name in spec.defaults:
        schema["default"] = spec.defaults[name]
    elif is_required(arg):
        required.append(name)
    properties[name] = schema


def _document(kind: str, spec: ToolSpec, offered: dict[str, GraphQLArgument]) -> str:
    declared = ", ".join(f"${n}: {_variable_type(a)}" for n, a in offered.items())
    passed = ", ".join(f"{n}: ${n}" for n in offered)
    name = "".join(part.title() for part in spec.name.split("_"))
    head = f"{kind} {name}({declared})" if declared else f"{kind} {name}"
    call = f"{spec.root}({passed})" if passed else spec.root
    return f"{head} {{ {call} {spec.select} }}"


def _variable_type(argument: GraphQLArgument) -> str:
    """An argument with a default takes a nullable variable: left out, the default applies."""
    kind = argument.type
    if isinstance(kind, GraphQLNonNull) and argument.default_value is not Undefined:
        return str(kind.of_type)
    return str(kind)


def describe(operation: Operation) -> str:
    """The tool's description: its purpose and an example call."""
    example = json.dumps(operation.spec.example, separators=(", ", ": "))
    return f"{operation.spec.purpose}\nExample arguments: {example}"
