"""Memory records over HTTP (issue 6): remember, recall, upsert with versions, history, lists,
isolation across clients and namespaces, and validation errors."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.model.enums import Role
from app.settings import Settings
from tests.integration.conftest import Caller, new_caller
from tests.integration.memory_helpers import (
    FORGET,
    HISTORY,
    RECALL_ID,
    RECALL_KEY,
    REMEMBER,
    error_of,
    listed,
    remember,
)

NS = {"subject": "alice", "agent": "brad", "path": ["health"]}


# Reviewer keys named tester: these tests write memory of agents brad, planner, ... (an agent
# key writes only its own agent's memory).
pytestmark = pytest.mark.callers(role=Role.REVIEWER)


def test_remember_recall_by_id_and_key(alice: Caller) -> None:
    made = remember(
        alice,
        namespace=NS,
        key="allergy",
        text="Alice is allergic to peanuts",
        content={"allergen": "peanut"},
        tags=["Health Fact", "food"],
        priority=8,
    )
    assert made["namespace"] == "subject:alice/agent:brad/health"
    assert made["version"] == 1 and made["active"] is True and made["priority"] == 8
    assert made["tags"] == ["health-fact", "food"]
    assert made["sourceAgent"] == "tester" and made["contentUri"] is None
    by_id = alice.data(RECALL_ID, {"id": made["id"]})["recallMemory"]
    by_key = alice.data(RECALL_KEY, {"ns": NS, "key": "allergy"})["recallMemory"]
    assert by_id == by_key
    assert by_id["content"] == {"allergen": "peanut"} and by_id["text"] == made["text"]
    root = remember(alice, text="brand voice: friendly", key="voice")
    assert root["namespace"] == ""
    assert alice.data(RECALL_KEY, {"ns": None, "key": "voice"})["recallMemory"]["id"] == root["id"]


def test_upsert_keeps_versions_and_history(alice: Caller) -> None:
    first = remember(alice, namespace=NS, key="diet", text="vegetarian", priority=4)
    second = remember(alice, namespace=NS, key="diet", text="vegan", tags=["diet"])
    assert second["id"] == first["id"] and second["version"] == 2
    assert second["text"] == "vegan" and second["priority"] == 5  # replaced as a whole
    assert second["createdAt"] == first["createdAt"]
    history = alice.data(HISTORY, {"id": first["id"]})["memoryHistory"]
    assert history["record"]["version"] == 2
    assert [(v["version"], v["text"], v["priority"]) for v in history["versions"]] == [
        (1, "vegetarian", 4)
    ]
    stale = alice.gql(
        REMEMBER,
        {
            "input": {
                "kind": "SEMANTIC",
                "namespace": NS,
                "key": "diet",
                "text": "x",
                "expectedVersion": 1,
            }
        },
    )
    assert error_of(stale)["code"] == "CONFLICT"
    fresh = alice.gql(
        REMEMBER,
        {
            "input": {
                "kind": "SEMANTIC",
                "namespace": NS,
                "key": "diet",
                "text": "x",
                "expectedVersion": 2,
            }
        },
    )
    assert fresh["data"]["remember"]["version"] == 3
    other_kind = alice.gql(
        REMEMBER, {"input": {"kind": "EPISODIC", "namespace": NS, "key": "diet", "text": "x"}}
    )
    assert error_of(other_kind)["code"] == "CONFLICT"


def test_forgotten_key_is_revived_as_a_new_version(alice: Caller) -> None:
    made = remember(alice, namespace=NS, key="mood", text="happy")
    assert alice.data(FORGET, {"id": made["id"]})["forgetMemory"]["hard"] is False
    gone = alice.gql(RECALL_KEY, {"ns": NS, "key": "mood"})
    assert error_of(gone)["code"] == "NOT_FOUND"
    revived = remember(alice, namespace=NS, key="mood", text="calm", kind="EPISODIC")
    assert revived["id"] == made["id"] and revived["version"] == 2 and revived["active"]
    assert revived["deletedAt"] is None and revived["kind"] == "EPISODIC"


def test_isolation_across_clients_and_namespaces(alice: Caller, bob: Caller) -> None:
    mine = remember(alice, namespace=NS, key="secret", text="alice's")
    theirs = remember(bob, namespace=NS, key="secret", text="bob's")
    assert theirs["id"] != mine["id"] and theirs["version"] == 1
    for query, variables in [
        (RECALL_ID, {"id": mine["id"]}),
        (FORGET, {"id": mine["id"]}),
        (FORGET, {"id": mine["id"], "hard": True}),
        (HISTORY, {"id": mine["id"]}),
    ]:
        assert error_of(bob.gql(query, variables))["code"] == "NOT_FOUND"
    assert bob.data(RECALL_KEY, {"ns": NS, "key": "secret"})["recallMemory"]["text"] == "bob's"
    assert alice.data(RECALL_ID, {"id": mine["id"]})["recallMemory"]["text"] == "alice's"
    other_ns = {**NS, "subject": "alicia"}
    assert error_of(alice.gql(RECALL_KEY, {"ns": other_ns, "key": "secret"}))["code"] == (
        "NOT_FOUND"
    )
    sibling = remember(alice, namespace=other_ns, key="secret", text="alicia's")
    assert sibling["id"] != mine["id"]
    found = listed(alice, {"namespacePrefix": "subject:alice"})
    assert {n["id"] for n in found["nodes"]} == {mine["id"]}  # whole segments: not alicia
    assert {n["id"] for n in listed(bob)["nodes"]} == {theirs["id"]}


def test_list_filters_and_pagination(settings: Settings, api_url: str) -> None:
    caller = new_caller(settings, api_url, role=Role.REVIEWER)
    ids = []
    for i in range(5):
        made = remember(
            caller,
            namespace={"agent": "planner", "path": [f"p{i % 2}"]},
            text=f"note {i}",
            kind="OBSERVATION" if i < 3 else "REFLECTION",
            tags=[f"t{i % 2}", "all"],
            priority=i + 1,
        )
        ids.append(made["id"])
    page1 = listed(caller, first=2)
    assert page1["totalCount"] == 5 and page1["pageInfo"]["hasNextPage"]
    assert [n["id"] for n in page1["nodes"]] == ids[::-1][:2]
    page2 = listed(caller, first=2, after=page1["pageInfo"]["endCursor"])
    assert [n["id"] for n in page2["nodes"]] == ids[::-1][2:4]
    assert listed(caller, {"kinds": ["REFLECTION"]})["totalCount"] == 2
    assert listed(caller, {"tagsAll": ["T1", "all"]})["totalCount"] == 2
    assert listed(caller, {"tagsAny": ["t0", "nope"]})["totalCount"] == 3
    assert listed(caller, {"minPriority": 2, "maxPriority": 4})["totalCount"] == 3
    assert listed(caller, {"namespacePrefix": "agent:planner/p1"})["totalCount"] == 2
    assert listed(caller, {"agent": "planner", "textContains": "NOTE 4"})["totalCount"] == 1
    later = (datetime.now(UTC) + timedelta(minutes=1)).isoformat()
    assert listed(caller, {"createdAfter": later})["totalCount"] == 0
    assert listed(caller, {"createdBefore": later})["totalCount"] == 5


def test_validation_errors_name_the_field(alice: Caller) -> None:
    past = (datetime.now(UTC) - timedelta(seconds=5)).isoformat()
    future = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    cases = [
        ({"text": "x", "priority": 11}, "priority"),
        ({"text": "x", "priority": 0}, "priority"),
        ({"text": "x", "namespace": {"subject": "a/b"}}, "subject"),
        ({"text": "x", "namespace": {"path": ["ok", "no:colon"]}}, "path"),
        ({"text": "x", "namespace": {"path": [f"s{i}" for i in range(9)]}}, "path"),
        ({"text": "x", "tags": [f"t{i}" for i in range(33)]}, "tags"),
        ({"text": "x", "tags": ["x" * 65]}, "tags"),
        ({"text": "x", "expiresAt": past}, "expires_at"),
        ({"text": "x", "expiresAt": future, "ttlSeconds": 5}, "ttl_seconds"),
        ({"text": "x", "ttlSeconds": -1}, "ttl_seconds"),
        ({"text": "   "}, "text"),
        ({"text": "x" * 20_001}, "text"),
        ({"text": "x", "content": 5}, "content"),
        ({"text": "x", "kind": "PROCEDURAL"}, "procedure_type"),
        ({"text": "x", "procedureType": "TEMPLATE"}, "procedure_type"),
        ({"text": "x", "key": "k" * 257}, "key"),
    ]
    for fields, field in cases:
        body = alice.gql(REMEMBER, {"input": {"kind": "SEMANTIC", **fields}})
        error = error_of(body)
        assert (error["code"], error.get("field")) == ("VALIDATION", field), (fields, error)
    bad_prefix = alice.gql(
        'query { memories(where: {namespacePrefix: "subject:a b"}) { totalCount } }'
    )
    assert error_of(bad_prefix)["code"] == "VALIDATION"
    bad_id = alice.gql(RECALL_ID, {"id": "not-a-uuid"})
    assert error_of(bad_id)["code"] == "VALIDATION"
    assert listed(alice)["totalCount"] == 0  # nothing was written


def test_concurrent_upserts_of_one_key_lose_no_version(alice: Caller) -> None:
    from concurrent.futures import ThreadPoolExecutor

    def write(n: int) -> int:
        body = alice.gql(
            REMEMBER,
            {"input": {"kind": "SEMANTIC", "namespace": NS, "key": "race", "text": f"writer {n}"}},
        )
        assert not body.get("errors"), body["errors"]
        return int(body["data"]["remember"]["version"])

    with ThreadPoolExecutor(max_workers=6) as pool:
        versions = sorted(pool.map(write, range(12)))
    assert versions == list(range(1, 13))
    record = alice.data(RECALL_KEY, {"ns": NS, "key": "race"})["recallMemory"]
    history = alice.data(HISTORY, {"id": record["id"]})["memoryHistory"]
    assert [v["version"] for v in history["versions"]] == list(range(11, 0, -1))
    assert {v["text"] for v in history["versions"]} | {record["text"]} == {
        f"writer {n}" for n in range(12)
    }
