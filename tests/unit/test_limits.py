"""The query limit rule (app/api/edge/limits.py): strawberry's limits, at a linear cost."""

from __future__ import annotations

import inspect
import sys
import time

import pytest
from graphql import build_schema, get_introspection_query, parse, specified_rules, validate

from app.api.edge.limits import DocumentMeasure, Measure, limit_rule

SCHEMA = build_schema(
    """
    type Query { viewer: Viewer node: Node }
    type Viewer { clientId: ID name: String friend: Viewer }
    type Node { id: ID parent: Node }
    """
)


def bomb(levels: int, leaf: str = "clientId") -> str:
    """Each fragment spreads the previous one twice: 2^levels fields once expanded."""
    fragments = [f"fragment F0 on Viewer {{ {leaf} }}"] + [
        f"fragment F{n} on Viewer {{ ...F{n - 1} ...F{n - 1} }}" for n in range(1, levels + 1)
    ]
    return f"{{ viewer {{ ...F{levels} }} }} " + " ".join(fragments)


def errors(query: str, *, depth: int = 12, aliases: int = 30, fields: int = 5_000) -> list[str]:
    rule = limit_rule(max_depth=depth, max_aliases=aliases, max_fields=fields)
    return [error.message for error in validate(SCHEMA, parse(query), [rule])]


def measure(query: str) -> Measure:
    document = parse(query)
    operation = document.definitions[0]
    return DocumentMeasure(document).selections(operation.selection_set)  # type: ignore[attr-defined]


def test_depth_aliases_and_fields_count_fragments_at_every_spread() -> None:
    assert measure("{ viewer { clientId } }") == Measure(depth=1, aliases=0, fields=2)
    assert measure("{ node { parent { parent { id } } } }") == Measure(3, 0, 4)
    nested = "{ viewer { ...A } } fragment A on Viewer { friend { ...B } } "
    nested += "fragment B on Viewer { a: name b: name }"
    assert measure(nested) == Measure(depth=2, aliases=2, fields=4)
    assert measure(bomb(3)) == Measure(depth=1, aliases=0, fields=1 + 2**3)
    assert measure(bomb(3, leaf="x: clientId")).aliases == 2**3


def test_introspection_fields_are_not_depth_limited_as_in_strawberry() -> None:
    standard = parse(get_introspection_query(descriptions=True, specified_by_url=True))
    rule = limit_rule(max_depth=2, max_aliases=0, max_fields=500)
    assert validate(SCHEMA, standard, [rule]) == []


def test_each_limit_names_the_operation_and_the_allowance() -> None:
    assert errors("query Deep { node { parent { parent { id } } } }", depth=2) == [
        "'Deep' exceeds maximum operation depth of 2"
    ]
    aliased = errors("{ a: viewer { clientId } b: viewer { clientId } }", aliases=1)
    assert aliased == ["'anonymous' has 2 aliases (fragments counted at each spread). Allowed: 1"]
    assert errors(bomb(4), fields=16) == [
        "'anonymous' selects 17 fields once its fragments are expanded. Allowed: 16; spread "
        "fragments fewer times or split the query"
    ]
    assert errors(bomb(4), fields=17) == []


def test_each_operation_is_measured_on_its_own() -> None:
    document = "query A { a: viewer { clientId } } query B { b: viewer { clientId } }"
    assert errors(document, aliases=1) == []


@pytest.mark.parametrize("levels", [20, 60, 150])
def test_fragment_bombs_are_refused_in_linear_time(levels: int) -> None:
    started = time.perf_counter()
    found = errors(bomb(levels), aliases=30)
    assert found == [
        f"'anonymous' selects {2**levels + 1} fields once its fragments are expanded. "
        "Allowed: 5000; spread fragments fewer times or split the query"
    ]
    assert time.perf_counter() - started < 0.5  # strawberry's limiters: 2.4 s at 20 levels


def test_alias_bombs_are_refused_by_their_alias_count() -> None:
    found = errors(bomb(40, leaf="x: clientId"))
    assert f"'anonymous' has {2**40} aliases (fragments counted at each spread). Allowed: 30" in (
        found
    )


def test_fragment_cycles_and_unknown_fragments_are_left_to_graphql_core() -> None:
    cycle = "{ viewer { ...A } } fragment A on Viewer { ...B } fragment B on Viewer { ...A name }"
    assert errors(cycle) == []
    found = [e.message for e in validate(SCHEMA, parse(cycle), [*specified_rules])]
    assert found == ["Cannot spread fragment 'A' within itself via 'B'."]
    assert errors("{ viewer { ...Missing } }") == []


def test_a_long_chain_of_fragments_is_measured_without_recursion() -> None:
    # graphql-core refuses documents nested deeper than 200 levels, fragments included.
    chain = ["fragment F0 on Viewer { clientId }"] + [
        f"fragment F{n} on Viewer {{ ...F{n - 1} }}" for n in range(1, 190)
    ]
    document = parse("{ viewer { ...F189 } } " + " ".join(chain))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 60)  # far less than the chain is long
    try:
        measured = DocumentMeasure(document).selections(document.definitions[0].selection_set)  # type: ignore[attr-defined]
    finally:
        sys.setrecursionlimit(limit)
    assert measured == Measure(depth=1, aliases=0, fields=2)


def test_introspection_is_capped_per_operation_however_it_is_spelled() -> None:
    """Second review E-2: 20 aliases of a full `__schema` (1,940 tokens) took 3.7 s and gave
    9.4 MB. Aliases and fragment spreads count at each use; `__typename` is not introspection."""
    full = "{ queryType { name } types { name fields { name } } }"
    assert errors(f'{{ __schema {full} __type(name: "Viewer") {{ name }} __typename }}') == []
    aliased = "query Many { " + " ".join(f"s{n}: __schema {full}" for n in range(20)) + " }"
    assert errors(aliased) == [
        "'Many' selects __schema or __type 20 times. Allowed: 2; ask for the schema once per "
        "request"
    ]
    spread = "{ ...S ...S ...S } fragment S on Query { __schema { queryType { name } } }"
    assert measure(spread).introspections == 3 and len(errors(spread)) == 1
    standard = parse(get_introspection_query(descriptions=True, specified_by_url=True))
    operation = standard.definitions[0]
    assert DocumentMeasure(standard).selections(operation.selection_set).introspections == 1  # type: ignore[attr-defined]
