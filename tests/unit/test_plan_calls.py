"""Root fields a read plan calls (app/api/read/calls.py): which they are, and that their
arguments are converted exactly as strawberry converts them (app/api/read/arguments.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from graphql import GraphQLField, parse
from graphql.execution.values import get_argument_values, get_variable_values
from strawberry.types.arguments import convert_arguments

from app.api.read.calls import BACKREF, argument_converter, is_planned
from app.api.schema import schema
from app.model.enums import MemoryKind, ProcedureType

GRAPHQL = schema._schema
PLANNED = {("Query", "recallMemory"), ("Mutation", "remember")}
NAMESPACE = {"subject": "alice", "agent": "brad", "path": ["notes", "x"]}
CASES: list[tuple[str, str, str, dict[str, Any]]] = [
    ("Mutation", "remember", "$input: RememberInput!", {"input": {"kind": "SEMANTIC"}}),
    (
        "Mutation",
        "remember",
        "$input: RememberInput!, $k: String",
        {
            "k": "again",
            "input": {
                "kind": "PROCEDURAL",
                "namespace": NAMESPACE | {"sessionId": None},
                "key": "k1",
                "text": "t",
                "content": {"a": [1, {"b": None}], "c": "d"},
                "tags": ["x", "y"],
                "priority": 7,
                "sourceAgent": "brad",
                "expiresAt": "2030-01-02T03:04:05.123456+02:00",
                "ttlSeconds": 1.5,
                "timeline": "t1",
                "procedureType": "WORKFLOW",
                "expectedVersion": 0,
            },
        },
    ),
    (
        "Mutation",
        "remember",
        "$input: RememberInput!",
        {"input": {"kind": "EPISODIC", "tags": None, "namespace": None}},
    ),
    ("Query", "recallMemory", "$ns: NamespaceInput, $key: String!", {"ns": NAMESPACE, "key": "k"}),
    ("Query", "recallMemory", "$id: ID", {"id": "00000000-0000-4000-8000-000000000000"}),
    ("Query", "recallMemory", "$ns: NamespaceInput", {"ns": {}}),
]


def _field(type_name: str, name: str) -> GraphQLField:
    return GRAPHQL.type_map[type_name].fields[name]  # type: ignore[union-attr]


def test_planned_fields_are_the_marked_ones() -> None:
    marked = {
        (root.name, name)
        for root in (GRAPHQL.query_type, GRAPHQL.mutation_type)
        if root is not None
        for name, field in root.fields.items()
        if is_planned(field)
    }
    assert marked == PLANNED


@pytest.mark.parametrize("case", CASES, ids=[f"{c[1]}-{n}" for n, c in enumerate(CASES)])
def test_arguments_convert_as_strawberry_converts_them(case: Any) -> None:
    type_name, name, definitions, variables = case
    field = _field(type_name, name)
    arguments = ", ".join(f"{v}: ${v}" for v in variables if v != "k")
    if name == "remember" and "k" in variables:
        arguments += ", idempotencyKey: $k"
    operation = "mutation" if type_name == "Mutation" else "query"
    document = parse(f"{operation}({definitions}) {{ {name}({arguments}) {{ id }} }}")
    definition = document.definitions[0]
    coerced = get_variable_values(GRAPHQL, definition.variable_definitions, variables)  # type: ignore[attr-defined]
    assert not isinstance(coerced, list), coerced
    node = definition.selection_set.selections[0]  # type: ignore[attr-defined]
    values = get_argument_values(field, node, coerced)
    convert = argument_converter(field, GRAPHQL)
    assert convert is not None
    strawberry_field = field.extensions[BACKREF]
    expected = convert_arguments(
        values,
        strawberry_field.arguments,
        scalar_registry=schema.schema_converter.scalar_registry,
        config=schema.config,
    )
    assert convert(values) == expected
    assert repr(convert(values)) == repr(expected)


def test_converted_values_are_the_python_ones() -> None:
    field = _field("Mutation", "remember")
    convert = argument_converter(field, GRAPHQL)
    assert convert is not None
    values = {
        "input": {
            "kind": MemoryKind.PROCEDURAL,
            "procedureType": ProcedureType.WORKFLOW,
            "namespace": {"subject": "a", "path": ["p"]},
            "expiresAt": datetime(2030, 1, 1, tzinfo=UTC),
            "tags": ["t"],
        }
    }
    given = convert(values)["input"]
    assert given.kind is MemoryKind.PROCEDURAL and given.procedure_type is ProcedureType.WORKFLOW
    assert given.namespace.parts() == {
        "subject": "a",
        "agent": None,
        "session_id": None,
        "path": ["p"],
    }
    assert given.tags == ["t"] and given.tags is not values["input"]["tags"]
    assert given.key is None and given.expires_at == datetime(2030, 1, 1, tzinfo=UTC)
