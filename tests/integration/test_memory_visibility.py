"""Forgotten and expired memories stay hidden in every compiled read, also as related records."""

from __future__ import annotations

import pytest

from tests.integration.conftest import Caller
from tests.integration.session_helpers import DELETE_ENTRY, put, start

SESSION = "query($id: ID!) { memorySession(id: $id) { id entries { id active } } }"


# Keys of agent brad, whose sessions these tests run (an agent key acts only as itself).
pytestmark = pytest.mark.callers(agent_name="brad")


def test_soft_deleted_entries_are_hidden_from_relationship_fields(alice: Caller) -> None:
    session = start(alice)
    kept = put(alice, session["id"], "keep this entry")
    gone = put(alice, session["id"], "forget this entry")
    before = alice.data(SESSION, {"id": session["id"]})["memorySession"]
    assert {entry["id"] for entry in before["entries"]} == {kept["id"], gone["id"]}
    alice.data(DELETE_ENTRY, {"id": gone["id"]})
    after = alice.data(SESSION, {"id": session["id"]})["memorySession"]
    assert [entry["id"] for entry in after["entries"]] == [kept["id"]]


def test_generic_session_read_is_scoped_to_the_client(alice: Caller, bob: Caller) -> None:
    session = start(alice)
    body = bob.gql(SESSION, {"id": session["id"]})
    assert body["data"] is None or body["data"]["memorySession"] is None
    assert body["errors"][0]["extensions"]["code"] == "NOT_FOUND"
