"""Cypher calls counted per request: the edge's count sees every call, the GraphQL execution's
count (the cypherRoundTrips extension) its own; counts started in a row never chain."""

from __future__ import annotations

import contextvars

import pytest

from app.graph.round_trips import cypher_call, start_counting


def _request() -> None:
    edge = start_counting()
    with cypher_call("MATCH (k:ApiKey) RETURN k"):  # the key check, before GraphQL
        pass
    execution = start_counting()
    for _ in range(3):
        with cypher_call("MATCH (n) RETURN n"):
            pass
    with pytest.raises(RuntimeError), cypher_call("MATCH (n) RETURN n"):
        raise RuntimeError("a failed call is a round trip too")
    assert (edge.count, execution.count) == (5, 4)
    assert edge.seconds >= execution.seconds > 0
    for _ in range(5_000):  # a context that starts count after count
        last = start_counting()
    assert last.parent is edge and edge.parent is None


def test_the_edge_counts_every_call_and_execution_its_own() -> None:
    contextvars.copy_context().run(_request)
