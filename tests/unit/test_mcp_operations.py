"""The MCP tools' GraphQL documents and argument schemas (app/mcp/operations.py), made from the
GraphQL schema: every document is valid, every example call fits its tool's schema, flattened
input fields become top-level arguments, and results are cut to their token budget."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import parse, validate
from jsonschema import Draft202012Validator

from app.api.schema import build_schema
from app.mcp.budget import compact, fit
from app.mcp.catalogue import READS, TOOLS
from app.mcp.operations import TOKEN_BUDGET, build
from app.retrieval.budget import estimate_tokens
from app.settings import Settings

SCHEMA = build_schema(Settings())._schema


@pytest.mark.parametrize("spec", [*TOOLS, *READS.values()], ids=lambda spec: spec.name)
def test_each_document_is_valid_and_its_example_fits_its_schema(spec: Any) -> None:
    operation = build(spec, SCHEMA)
    assert validate(SCHEMA, parse(operation.document)) == []
    Draft202012Validator.check_schema(operation.input_schema)
    errors = list(Draft202012Validator(operation.input_schema).iter_errors(spec.example))
    assert errors == [], [e.message for e in errors]


def test_a_flattened_input_is_the_tools_own_arguments() -> None:
    remember = build(next(s for s in TOOLS if s.name == "remember"), SCHEMA)
    properties = remember.input_schema["properties"]
    assert {"text", "kind", "namespace", "tags", "idempotencyKey"} <= set(properties)
    assert "input" not in properties and "expectedVersion" not in properties  # omitted
    assert properties["kind"]["enum"][-1] is None  # nullable: left out or null
    assert properties["namespace"]["properties"]["subject"]["type"] == ["string", "null"]
    assert remember.document.startswith(
        "mutation Remember($input: RememberInput!, $idempotencyKey: String) "
        "{ remember(input: $input, idempotencyKey: $idempotencyKey) {"
    )
    variables = remember.variables({"text": "x", "kind": "SEMANTIC", "idempotencyKey": "k1"})
    assert variables == {"idempotencyKey": "k1", "input": {"text": "x", "kind": "SEMANTIC"}}


def test_graphql_defaults_make_arguments_optional_and_are_left_to_graphql() -> None:
    search = build(next(s for s in TOOLS if s.name == "search_memory"), SCHEMA)
    properties = search.input_schema["properties"]
    assert search.input_schema["required"] == ["text"]
    assert (properties["mode"]["default"], properties["k"]["default"]) == ("HYBRID", 10)
    assert properties[TOKEN_BUDGET]["default"] == 2000
    assert search.variables({"text": "q", TOKEN_BUDGET: 100}) == {"input": {"text": "q"}}
    rehydrate = build(next(s for s in TOOLS if s.name == "session_rehydrate"), SCHEMA)
    assert rehydrate.variables({"id": "x"}) == {"id": "x", "limit": 50}  # the tool's own


def test_results_drop_nulls_and_are_cut_from_their_longest_list_to_fit() -> None:
    assert compact({"a": None, "b": [], "c": [{"d": None, "e": 1}]}) == {"c": [{"e": 1}]}
    hits = [{"id": f"id-{n}", "text": "word " * 40} for n in range(20)]
    value = {"hits": hits, "why": ["a", "b"], "total": 20}
    cut = fit(value, 400)
    assert cut["truncated"] is True and cut["omittedItems"] == 20 - len(cut["hits"])
    assert cut["hits"] == hits[: len(cut["hits"])] and cut["why"] == ["a", "b"]
    assert estimate_tokens({k: v for k, v in cut.items()}) <= 400 + 20
    assert fit(value, 100_000) == value  # within budget: unchanged, no flag


def test_an_argument_with_a_default_takes_a_nullable_variable() -> None:
    forget = build(next(s for s in TOOLS if s.name == "forget"), SCHEMA)
    assert "$hard: Boolean," in forget.document or "$hard: Boolean)" in forget.document
    assert "hard" not in forget.input_schema.get("required", [])
    assert forget.variables({"id": "x"}) == {"id": "x"}  # GraphQL's default (false) applies
