"""The change feed's parts that need no server: what a transaction's notes become, the strict
check, the node lookup's Cypher, a subscription connection's key, a persisted query's hash."""

from __future__ import annotations

import hashlib

import pytest

from app.api.edge.persisted_queries import PersistedQueryError, persisted_hash
from app.api.edge.ws_auth import init_payload_key
from app.graph import change_feed
from app.graph.change_feed import PendingChanges, acting, collecting, feed_parameters, note_change
from app.graph.fragments import label_of_query
from app.model.enums import ChangeAction


def test_notes_become_one_feed_per_client_in_client_order_with_the_actor() -> None:
    pending = PendingChanges()
    with acting("createPlan", key_id="k1", agent="scout"), collecting(pending):
        note_change("zeta", "Plan", "p1", ChangeAction.CREATED)
        note_change("alpha", "ConversationEvent", "e1", ChangeAction.CREATED, parent_id="t1")
        note_change("zeta", "Plan", "p1", ChangeAction.UPDATED)
        params = feed_parameters(pending)
    assert params is not None
    assert [feed["client_id"] for feed in params["feeds"]] == ["alpha", "zeta"]
    assert params["feeds"][0]["changes"] == [
        {
            "record_type": "ConversationEvent",
            "record_id": "e1",
            "action": "created",
            "parent_id": "t1",
        }
    ]
    assert [c["action"] for c in params["feeds"][1]["changes"]] == ["created", "updated"]
    assert (params["operation"], params["key_id"], params["agent"]) == ("createPlan", "k1", "scout")


def test_a_label_outside_the_model_and_a_note_outside_a_transaction_are_refused() -> None:
    with collecting(PendingChanges()), pytest.raises(ValueError):
        note_change("c", "NoSuchLabel", "x", ChangeAction.CREATED)
    with pytest.raises(RuntimeError):
        note_change("c", "Plan", "x", ChangeAction.CREATED)


def test_strict_mode_fails_a_callers_write_that_noted_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(change_feed, "STRICT", True)
    wrote = PendingChanges(wrote=True)
    with acting("updatePlan", key_id="k1"), pytest.raises(AssertionError, match="updatePlan"):
        feed_parameters(wrote)
    with acting("memory-sweeper"):  # background jobs are not held to it
        assert feed_parameters(wrote) is None
    exempt = PendingChanges(wrote=True, exempt=True)
    with acting("recallMemory", key_id="k1"):
        assert feed_parameters(exempt) is None


def test_the_node_lookup_seeks_each_label_by_id_and_client() -> None:
    query = label_of_query(["Plan", "Asset"])
    assert "MATCH (n:`Plan` {id: $id, client_id: $client_id}) RETURN labels(n) AS labels" in query
    assert "UNION ALL" in query and query.rstrip().endswith("RETURN labels LIMIT 1")
    with pytest.raises(ValueError):
        label_of_query(["Plan`) DETACH DELETE n //"])


def test_a_connection_key_from_the_init_payload() -> None:
    assert init_payload_key({"Authorization": "Bearer am_x"}) == "am_x"
    assert init_payload_key({"apiKey": "am_y"}) == "am_y"
    assert init_payload_key({"authorization": "Basic zzz"}) is None
    assert init_payload_key(["not", "a", "map"]) is None


def test_a_persisted_query_hash_is_checked() -> None:
    digest = hashlib.sha256(b"{ viewer { role } }").hexdigest()
    extension = {"persistedQuery": {"version": 1, "sha256Hash": digest}}
    assert persisted_hash({"extensions": extension}) == digest
    assert persisted_hash({"query": "{ a }"}) is None
    for bad in ({"version": 2, "sha256Hash": digest}, {"version": 1, "sha256Hash": "XYZ"}):
        with pytest.raises(PersistedQueryError) as refused:
            persisted_hash({"extensions": {"persistedQuery": bad}})
        assert refused.value.code == "PERSISTED_QUERY_INVALID"
