"""Memory records over HTTP (issue 6): expiry and the sweeper, soft and hard delete, large
content in object storage, artifacts, and the access log."""

from __future__ import annotations

import base64
import hashlib
import json
import time
from typing import Any

import httpx

from app.artifacts.store import make_client
from app.model.enums import Role
from app.settings import Settings
from tests.integration.conftest import Caller
from tests.integration.memory_helpers import (
    FORGET,
    HISTORY,
    RECALL_ID,
    SWEEP,
    SWEEPS,
    error_of,
    listed,
    log_entries,
    remember,
    team,
)

ATTACH = """mutation($id: ID!, $kind: String!, $b64: String, $uri: String) {
  attachMemoryArtifact(recordId: $id, kind: $kind, contentBase64: $b64, uri: $uri) {
    id ownerId kind uri sha256 size contentType downloadUrl } }"""
WITH_ARTIFACTS = """query($id: ID!) { recallMemory(id: $id) {
  id artifacts { kind size sha256 } versions { version } } }"""


def _node_count(neo4j_session: Any, label: str, **props: Any) -> int:
    query = f"MATCH (n:{label}) WHERE all(k IN keys($props) WHERE n[k] = $props[k]) RETURN count(n)"
    return int(neo4j_session.run(query, props=props).single()[0])


def test_expired_records_vanish_and_the_sweeper_purges_only_them(
    settings: Settings, api_url: str, neo4j_session: Any
) -> None:
    callers = team(settings, api_url, Role.AGENT, Role.ADMIN)
    agent, admin = callers[Role.AGENT], callers[Role.ADMIN]
    brief = remember(agent, key="otp", text="one-time code 4711", ttlSeconds=1)
    remember(agent, key="otp", text="second version 4712", ttlSeconds=1)  # a version to purge
    lasting = remember(agent, key="name", text="Alice")
    assert agent.data(RECALL_ID, {"id": brief["id"]})["recallMemory"]["version"] == 2
    time.sleep(1.5)
    assert error_of(agent.gql(RECALL_ID, {"id": brief["id"]}))["code"] == "NOT_FOUND"
    assert error_of(agent.gql(HISTORY, {"id": brief["id"]}))["code"] == "NOT_FOUND"
    assert [n["id"] for n in listed(agent)["nodes"]] == [lasting["id"]]
    assert [n["id"] for n in listed(admin, inactive=True)["nodes"]] == [lasting["id"]]
    assert error_of(agent.gql(SWEEP))["code"] == "FORBIDDEN"
    admin.data(SWEEP)
    assert _node_count(neo4j_session, "MemoryRecord", id=brief["id"]) == 0
    assert _node_count(neo4j_session, "MemoryVersion", record_id=brief["id"]) == 0
    assert _node_count(neo4j_session, "MemoryRecord", id=lasting["id"]) == 1
    # The purge is counted once, whichever run (this one or the background one) did it.
    runs = admin.data(SWEEPS)["memorySweeps"]
    assert runs and sum(run["purged"] for run in runs) == 1
    expired = log_entries(admin, operations=["expire"])
    assert [(e["principal"], e["detail"]) for e in expired] == [
        ("system:sweeper", "1 expired records purged")
    ]
    # The details are process-wide: shown to an admin key only (issue 11, finding 9).
    admin_key = {"Authorization": f"Bearer {admin.key}"}
    ready = httpx.get(f"{api_url}/readyz", headers=admin_key).json()["details"]
    assert ready["memory_sweeper"]["runs"] >= 1 and "written" in ready["access_log"]


def test_soft_and_hard_delete_are_audited(
    settings: Settings, api_url: str, neo4j_session: Any
) -> None:
    callers = team(settings, api_url, Role.AGENT, Role.ADMIN, Role.ANALYST)
    agent, admin, analyst = callers[Role.AGENT], callers[Role.ADMIN], callers[Role.ANALYST]
    soft = remember(agent, key="soft", text="to forget")
    hard = remember(agent, key="hard", text="to purge")
    remember(agent, key="hard", text="to purge, v2")
    assert agent.data(FORGET, {"id": soft["id"]})["forgetMemory"] == {
        "id": soft["id"],
        "hard": False,
        "versionsDeleted": 0,
        "objectsDeleted": 0,
    }
    assert error_of(agent.gql(RECALL_ID, {"id": soft["id"]}))["code"] == "NOT_FOUND"
    assert error_of(agent.gql(FORGET, {"id": soft["id"]}))["code"] == "NOT_FOUND"
    assert soft["id"] not in {n["id"] for n in listed(agent)["nodes"]}
    assert error_of(agent.gql(HISTORY, {"id": soft["id"], "inactive": True}))["code"] == (
        "FORBIDDEN"
    )
    inactive = listed(admin, inactive=True)["nodes"]
    assert {n["id"]: n["active"] for n in inactive}[soft["id"]] is False
    assert admin.data(HISTORY, {"id": soft["id"], "inactive": True})["memoryHistory"]
    purged = agent.data(FORGET, {"id": hard["id"], "hard": True})["forgetMemory"]
    assert purged["hard"] is True and purged["versionsDeleted"] == 1
    assert _node_count(neo4j_session, "MemoryRecord", id=hard["id"]) == 0
    assert _node_count(neo4j_session, "MemoryVersion", record_id=hard["id"]) == 0
    assert agent.data(FORGET, {"id": soft["id"], "hard": True})["forgetMemory"]["hard"]
    assert error_of(agent.gql("{ accessLog { totalCount } }"))["code"] == "FORBIDDEN"
    entries = log_entries(analyst, targetId=hard["id"])
    assert [(e["operation"], e["outcome"]) for e in entries] == [
        ("purge", "OK"),
        ("update", "OK"),
        ("create", "OK"),
    ]
    assert {(e["principal"], e["role"], e["targetType"]) for e in entries} == {
        ("agent-bot", "agent", "MemoryRecord")
    }
    soft_ops = [(e["operation"], e["outcome"]) for e in log_entries(admin, targetId=soft["id"])]
    assert soft_ops == [
        ("purge", "OK"),
        ("history", "OK"),
        ("history", "REJECTED"),
        ("delete", "NOT_FOUND"),
        ("read", "NOT_FOUND"),
        ("delete", "OK"),
        ("create", "OK"),
    ]


def test_large_content_round_trips_through_object_storage(
    settings: Settings, alice: Caller, neo4j_session: Any
) -> None:
    content = {"transcript": [f"line {i}: " + "words " * 20 for i in range(200)]}
    data = json.dumps(content, separators=(",", ":"), sort_keys=True).encode()
    assert len(data) > settings.memory_inline_content_max
    made = remember(alice, key="call", text="call transcript", content=content)
    assert made["contentUri"].startswith(f"s3://{settings.s3_bucket}/client/{alice.client_id}/")
    assert made["contentSha256"] == hashlib.sha256(data).hexdigest()
    assert made["contentSize"] == len(data) and made["content"] == content
    stored = neo4j_session.run(
        "MATCH (r:MemoryRecord {id: $id}) RETURN r.content AS c", id=made["id"]
    ).single()
    assert stored["c"] is None  # not in the graph
    assert alice.data(RECALL_ID, {"id": made["id"]})["recallMemory"]["content"] == content
    assert listed(alice)["nodes"][0]["content"] == content
    s3 = make_client(settings)
    key = made["contentUri"].removeprefix(f"s3://{settings.s3_bucket}/")
    assert s3.stat_object(settings.s3_bucket, key).size == len(data)
    result = alice.data(FORGET, {"id": made["id"], "hard": True})["forgetMemory"]
    assert result["objectsDeleted"] == 1
    assert not list(s3.list_objects(settings.s3_bucket, prefix=key))


def test_artifacts_upload_or_reference_under_the_client_prefix(alice: Caller, bob: Caller) -> None:
    made = remember(alice, key="meeting", text="meeting notes")
    text = b"Alice: hello\nBrad: hi there\n"
    first = alice.data(
        ATTACH, {"id": made["id"], "kind": "transcript", "b64": base64.b64encode(text).decode()}
    )["attachMemoryArtifact"]
    assert first["size"] == len(text) and first["sha256"] == hashlib.sha256(text).hexdigest()
    assert first["uri"].startswith("s3://") and f"/client/{alice.client_id}/" in first["uri"]
    assert httpx.get(first["downloadUrl"]).content == text
    again = alice.data(ATTACH, {"id": made["id"], "kind": "copy", "uri": first["uri"]})
    assert again["attachMemoryArtifact"]["sha256"] == first["sha256"]
    found = alice.data(WITH_ARTIFACTS, {"id": made["id"]})["recallMemory"]
    assert sorted(a["kind"] for a in found["artifacts"]) == ["copy", "transcript"]
    theirs = remember(bob, key="meeting", text="bob's notes")
    stolen = bob.gql(ATTACH, {"id": theirs["id"], "kind": "copy", "uri": first["uri"]})
    assert error_of(stolen)["code"] == "NOT_FOUND"
    foreign = alice.gql(ATTACH, {"id": theirs["id"], "kind": "x", "b64": "aGk="})
    assert error_of(foreign)["code"] == "NOT_FOUND"
    bad = alice.gql(ATTACH, {"id": made["id"], "kind": "x", "b64": "%%%"})
    assert error_of(bad)["code"] == "VALIDATION"
