"""Input text checked once at the edge (issue 11, finding 3): a lone surrogate, a control
character or an over-deep JSON value in any String, ID or JSON input is refused with VALIDATION
naming the variable and field, before anything is written; never INTERNAL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from graphql import (
    GraphQLField,
    GraphQLInputType,
    GraphQLObjectType,
    build_schema,
    get_named_type,
    is_composite_type,
    is_input_object_type,
)

from app.settings import Settings
from tests.integration.acceptance_flow import object_keys
from tests.integration.asset_helpers import CREATE_PROMPT
from tests.integration.conftest import Caller
from tests.integration.memory_helpers import remember
from tests.integration.test_plans_api import GET, create_plan

SURROGATE = "x\ud800y"
SDL = build_schema((Path(__file__).parents[2] / "schema.graphql").read_text())
TEXT_TYPES = {"String": "text", "ID": "text", "JSON": "json"}


def _input_paths(type_: GraphQLInputType, seen: frozenset[str]) -> Iterator[tuple[list[str], str]]:
    """Paths to every String, ID and JSON value inside an input type, with their kind."""
    named = get_named_type(type_)
    if named.name in TEXT_TYPES:
        yield [], TEXT_TYPES[named.name]
    elif is_input_object_type(named) and named.name not in seen:
        for name, field in named.fields.items():  # type: ignore[attr-defined]
            for path, kind in _input_paths(field.type, seen | {named.name}):
                yield [name, *path], kind


def _operation(keyword: str, name: str, field: GraphQLField) -> str:
    params = ", ".join(f"$a_{arg}: {spec.type}" for arg, spec in field.args.items())
    call = ", ".join(f"{arg}: $a_{arg}" for arg in field.args)
    selection = "{ __typename }" if is_composite_type(get_named_type(field.type)) else ""
    return f"{keyword}({params}) {{ {name}({call}) {selection} }}"


def _cases() -> Iterator[tuple[str, str, str, list[str], str]]:
    roots: list[tuple[str, GraphQLObjectType | None]] = [
        ("query", SDL.query_type),
        ("mutation", SDL.mutation_type),
    ]
    for keyword, root in roots:
        assert root is not None
        for name, field in root.fields.items():
            for arg, spec in field.args.items():
                for path, kind in _input_paths(spec.type, frozenset()):
                    yield keyword, name, arg, path, kind


CASES = list(_cases())


def post(caller: Caller, query: str, variables: dict[str, Any]) -> Any:
    """As `Caller.gql`, with the JSON escaped to ASCII: an unpaired surrogate travels as
    "\\ud800", as a JSON client would send it (httpx cannot encode it as UTF-8)."""
    response = caller.http.post(
        "/graphql",
        content=json.dumps({"query": query, "variables": variables}),
        headers={"Authorization": f"Bearer {caller.key}", "content-type": "application/json"},
    )
    assert response.status_code == 200, response.text
    return response.json()


def _nested(path: list[str], value: Any) -> Any:
    for name in reversed(path):
        value = {name: value}
    return value


def test_the_walk_finds_every_text_input() -> None:
    kinds = [case[-1] for case in CASES]
    # The probe counted 93 string inputs and 5 JSON scalars.
    assert kinds.count("text") >= 93 and kinds.count("json") >= 5


@pytest.mark.parametrize("bad", ["surrogate", "control", "deep"])
def test_every_text_input_refuses_bad_values_with_validation(alice: Caller, bad: str) -> None:
    refused = 0
    for keyword, name, arg, path, kind in CASES:
        if bad == "deep" and kind != "json":
            continue
        if bad == "deep":
            value: Any = "deep"
            for _ in range(40):  # the JSON scalar allows 32 levels
                value = [value]
        else:
            text = SURROGATE if bad == "surrogate" else "a\x00b"
            value = {"key": text} if kind == "json" else text
        variables = {f"a_{arg}": _nested(path, value)}
        root = SDL.query_type if keyword == "query" else SDL.mutation_type
        assert root is not None
        body = post(alice, _operation(keyword, name, root.fields[name]), variables)
        where = f"{name}({arg}: {'.'.join(path)})"
        codes = {error["extensions"]["code"] for error in body["errors"]}
        assert "INTERNAL" not in codes and body.get("data") is None, (where, body)
        ours = [e for e in body["errors"] if e["extensions"]["code"] == "VALIDATION"]
        assert ours, (where, body["errors"])
        assert ours[0]["message"].startswith(f"Variable '$a_{arg}' has invalid value"), where
        assert path[-1:] == [] or f".{path[-1]}" in ours[0]["message"], (where, ours)
        refused += 1
    assert refused >= (5 if bad == "deep" else 98)


def _literal(value: Any) -> str:
    """A value as a GraphQL literal (strings escaped as JSON does, which GraphQL reads)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{name}: {_literal(item)}" for name, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(item) for item in value) + "]"
    return json.dumps(value)


@pytest.mark.parametrize("bad", ["control", "deep"])
def test_every_text_input_refuses_bad_literals_naming_the_argument(alice: Caller, bad: str) -> None:
    """As above, the value written in the document (a lone surrogate cannot be: the parser
    refuses it): the refusal names the argument and the path inside it (review E5)."""
    refused = 0
    for keyword, name, arg, path, kind in CASES:
        if bad == "deep" and kind != "json":
            continue
        value: Any = "a\x01b"
        if bad == "deep":
            for _ in range(40):
                value = [value]
        elif kind == "json":
            value = {"key": value}
        root = SDL.query_type if keyword == "query" else SDL.mutation_type
        assert root is not None
        field = root.fields[name]
        selection = "{ __typename }" if is_composite_type(get_named_type(field.type)) else ""
        document = f"{keyword} {{ {name}({arg}: {_literal(_nested(path, value))}) {selection} }}"
        body = post(alice, document, {})
        where = f"{name}({arg}: {'.'.join(path)})"
        assert body.get("data") is None, (where, body)
        ours = [e for e in body["errors"] if e["extensions"]["code"] == "VALIDATION"]
        assert ours, (where, body["errors"])
        assert ours[0]["message"].startswith(f"Argument '{arg}' has invalid value"), (where, ours)
        assert path[-1:] == [] or f".{path[-1]}" in ours[0]["message"], (where, ours)
        assert ours[0]["locations"], where
        refused += 1
    assert refused >= (5 if bad == "deep" else 98)


def test_literals_are_checked_too(alice: Caller) -> None:
    body = alice.gql('{ recallMemory(key: "a\\u0000b") { id } }')
    error = body["errors"][0]
    assert error["extensions"]["code"] == "VALIDATION" and "U+0000" in error["message"]
    body = alice.gql('{ recallMemory(key: "x\\ud800y") { id } }')
    assert body["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION"  # the parser's


def test_free_text_keeps_tabs_newlines_and_terminal_colours(alice: Caller) -> None:
    text = "line 1\tcol\r\nline 2 \x1b[31mred\x1b[0m \U0001f600"
    made = remember(alice, key="terminal", text=text, content={"out": text})
    assert made["text"] == text and made["content"] == {"out": text}


def test_a_refused_prompt_leaves_no_object_in_storage(settings: Settings, alice: Caller) -> None:
    prompt = {"taskClass": "VIDEO_GEN", "provider": "acme", "model": "m", "promptText": "p" * 50}
    before = object_keys(settings, alice.client_id)
    refused = post(alice, CREATE_PROMPT, {"input": prompt | {"provider": SURROGATE}})
    error = refused["errors"][0]
    assert error["extensions"]["code"] == "VALIDATION" and ".provider" in error["message"]
    assert object_keys(settings, alice.client_id) == before
    alice.data(CREATE_PROMPT, {"input": prompt})  # the same input, valid: one object more
    assert len(object_keys(settings, alice.client_id)) == len(before) + 1


ATTACH = """mutation($id: ID!, $uri: String) {
  attachMemoryArtifact(recordId: $id, kind: "copy", uri: $uri) { id } }"""
ARTIFACTS = "query($id: ID!) { recallMemory(id: $id) { id artifacts { kind } } }"


def test_a_refused_artifact_uri_writes_nothing(alice: Caller) -> None:
    made = remember(alice, key="attach", text="notes")
    refused = post(alice, ATTACH, {"id": made["id"], "uri": SURROGATE})
    error = refused["errors"][0]
    assert error["extensions"]["code"] == "VALIDATION" and "$uri" in error["message"]
    assert alice.data(ARTIFACTS, {"id": made["id"]})["recallMemory"]["artifacts"] == []


def test_read_plans_refuse_what_graphql_refuses(alice: Caller) -> None:
    plan = create_plan(alice)
    for _ in range(3):  # learned by the first, answered by the plan after
        assert alice.data(GET, {"id": plan["id"]})["plan"]["id"] == plan["id"]
    for bad in (SURROGATE, plan["id"] + "\x00"):
        body = post(alice, GET, {"id": bad})
        assert body["data"] is None and body["errors"][0]["extensions"]["code"] == "VALIDATION"
