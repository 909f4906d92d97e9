"""The `operation` label of the request metrics names the schema's root fields, never what the
client chose (operationName, aliases), and stays bounded (issue 13)."""

from __future__ import annotations

from app.api.edge.outcome import INVALID, Outcome, operation_label
from app.api.schema import schema
from app.graph.round_trips import RoundTrips
from app.web.metrics import MAX_OPERATIONS, OTHER, RequestMetrics

GRAPHQL = schema._schema


def test_root_fields_sorted_and_joined_whatever_the_client_calls_them() -> None:
    query = "query Mine { b: viewer { clientId } a: recallMemory(key: $k) { id } }"
    assert operation_label(GRAPHQL, query, "Mine") == "recallMemory+viewer"
    assert operation_label(GRAPHQL, query, None) == "recallMemory+viewer"


def test_fragments_at_the_root_name_their_fields() -> None:
    query = """query { ...F ... on Query { memories { totalCount } } }
    fragment F on Query { viewer { role } ...G }
    fragment G on Query { viewer { clientId } }"""
    assert operation_label(GRAPHQL, query, None) == "memories+viewer"


def test_the_operation_named_is_the_one_labelled() -> None:
    query = "query A { viewer { role } } mutation B { remember(input: {}) { id } }"
    assert operation_label(GRAPHQL, query, "B") == "remember"
    assert operation_label(GRAPHQL, query, "A") == "viewer"


def test_what_the_schema_cannot_run_is_invalid() -> None:
    assert operation_label(GRAPHQL, "{ viewer { role }", None) == INVALID  # no parse
    assert operation_label(GRAPHQL, "{ noSuchField }", None) == INVALID
    assert operation_label(GRAPHQL, "mutation { viewer { role } }", None) == INVALID
    assert (
        operation_label(GRAPHQL, "query A { viewer { role } } query B { viewer { role } }", None)
        == INVALID
    )
    assert operation_label(GRAPHQL, "{ viewer { role } }", "Other") == INVALID
    assert operation_label(GRAPHQL, "{ ...F } fragment F on Query { ...F }", None) == INVALID


def test_operation_names_beyond_the_cap_count_as_other() -> None:
    metrics = RequestMetrics(["/metrics"])
    for n in range(MAX_OPERATIONS):
        label = metrics.operation(Outcome(operation=f"op{n}"), "/graphql")
        assert label == f"op{n}"
        metrics.record(label, 200, "", 0.001, RoundTrips())
    assert metrics.operation(Outcome(operation="one-more"), "/graphql") == OTHER
    assert metrics.operation(Outcome(operation="op7"), "/graphql") == "op7"  # known: kept
    assert metrics.operation(Outcome(), "/metrics") == "/metrics"
    assert metrics.operation(Outcome(), "/no/such/route") == OTHER
