"""Seed 004's sessions over real HTTP, Neo4j and S3: session types and metadata, archive (the
entries' text and inline content moved to object storage, the session still found by its
summary) and unarchive, memory types mapped onto kinds, agent state per session with expiry
beside the global state, the sweeper purging expired states, and isolation across clients."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from minio.error import S3Error

from app.artifacts.store import make_client
from app.model.enums import Role
from app.settings import Settings
from tests.integration import session_helpers as h
from tests.integration.asset_helpers import MISSING_ID, error_code
from tests.integration.conftest import Caller
from tests.integration.memory_helpers import LIST, REMEMBER, error_of, log_entries, team
from tests.integration.search_helpers import wait_indexed

pytestmark = pytest.mark.callers(agent_name="brad")

ARCHIVE = """mutation($id: ID!) { archiveSession(id: $id) {
  entriesMoved artifact { id kind ownerId uri sha256 size contentType }
  session { id status archivedAt archiveArtifactId sessionType } } }"""
UNARCHIVE = """mutation($id: ID!) { unarchiveSession(id: $id) {
  entriesRestored objectsDeleted session { id status archivedAt archiveArtifactId } } }"""
BY_TYPE = """query($type: String!) { memorySessions(where: {sessionType: $type}, first: 50) {
  nodes { id sessionType metadata } } }"""
SAVE_STATE = """mutation($sid: ID!, $state: JSON!, $agent: String, $expected: Int,
  $ttl: Float) { saveAgentSessionState(sessionId: $sid, state: $state, agentName: $agent,
  expectedVersion: $expected, ttlSeconds: $ttl) {
    id agentName sessionId state version expiresAt session { id } agent { name } } }"""
READ_STATE = """query($sid: ID!, $agent: String) { agentSessionState(sessionId: $sid,
  agentName: $agent) { id state version } }"""
CLEAR_STATE = """mutation($sid: ID!) { clearAgentSessionState(sessionId: $sid) }"""
SAVE_GLOBAL = """mutation($state: JSON!) { saveAgentState(state: $state) { id } }"""
AGENT = """query($id: ID!) { agent(id: $id) { name state stateVersion
  sessionStates { sessionId state version } } }"""
SESSION_STATES = (
    """query($id: ID!) { memorySession(id: $id) { agentStates { agentName state } } }"""
)
ENTRY_IN_GRAPH = """MATCH (:MemorySession {id: $id})-[:HAS_ENTRY]->(e:MemoryRecord)
  RETURN count(e) AS entries, count(e.text) AS texts, count(e.content) AS contents"""
LARGE = {"rows": ["x" * 100] * 100}  # above the 8000-byte inline limit: in object storage


def _flushed_session(caller: Caller) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A flushed session of four entries: text, inline content, large content, one deleted."""
    session = h.start(caller, sessionType="task", metadata={"device": "phone"})
    made = [
        h.put(caller, session["id"], "the zebrafish tank needs a heater"),
        h.put(caller, session["id"], None, content={"mood": "calm"}, tags=["mood"]),
        h.put(caller, session["id"], "attached spreadsheet", content=LARGE),
        h.put(caller, session["id"], "an aside nobody needs"),
    ]
    caller.data(h.DELETE_ENTRY, {"id": made[3]["id"]})
    summary = "Budget review about the lighthouse renovation"
    caller.data(h.END, {"id": session["id"], "summary": summary})
    return session, made


def _entry_hits(caller: Caller, session_id: str, text: str) -> list[str]:
    hits = caller.data(h.SEARCH_ENTRIES, {"sid": session_id, "text": text})
    return [hit["entry"]["id"] for hit in hits["searchSessionEntries"]]


def _summary_sessions(caller: Caller, text: str) -> list[str]:
    hits = caller.data(h.SEARCH_EPISODIC, {"text": text})["searchEpisodicSummaries"]
    return [hit["sessionId"] for hit in hits]


def _purge_logged(admin: Caller, detail: str, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if any(e["detail"] == detail for e in log_entries(admin, operations=["expire"])):
            return True
        time.sleep(0.2)
    return False


def test_session_type_and_metadata(alice: Caller, bob: Caller) -> None:
    task = h.start(alice, sessionType="Task", metadata={"device": "phone", "room": 4})
    talk = h.start(alice)
    assert (task["metadata"], talk["metadata"]) == ({"device": "phone", "room": 4}, None)
    listed = alice.data(BY_TYPE, {"type": "task"})["memorySessions"]["nodes"]
    assert [(n["id"], n["sessionType"]) for n in listed] == [(task["id"], "task")]
    talks = alice.data(BY_TYPE, {"type": "conversation"})["memorySessions"]["nodes"]
    assert [n["id"] for n in talks] == [talk["id"]]
    assert bob.data(BY_TYPE, {"type": "task"})["memorySessions"]["nodes"] == []
    refused = error_of(alice.gql(h.START, {"input": {"agent": "brad", "sessionType": "a b"}}))
    assert (refused["code"], refused["field"]) == ("VALIDATION", "session_type")


def test_archive_moves_entries_to_storage_and_unarchive_brings_them_back(
    settings: Settings, alice: Caller, neo4j_session: Any
) -> None:
    session, made = _flushed_session(alice)
    sid = session["id"]
    wait_indexed(alice)
    assert _entry_hits(alice, sid, "zebrafish") == [made[0]["id"]]  # findable before

    archived = alice.data(ARCHIVE, {"id": sid})["archiveSession"]
    assert archived["entriesMoved"] == 4  # the deleted entry's text goes too
    assert archived["session"]["status"] == "ARCHIVED" and archived["session"]["archivedAt"]
    artifact = archived["artifact"]
    assert (artifact["kind"], artifact["ownerId"]) == ("archive", sid)
    assert archived["session"]["archiveArtifactId"] == artifact["id"]
    row = neo4j_session.run(ENTRY_IN_GRAPH, id=sid).single()
    assert (row["entries"], row["texts"], row["contents"]) == (4, 0, 0)

    stored = alice.data(h.READ_ARTIFACT, {"id": artifact["id"]})["sessionArtifact"]
    document = json.loads(stored["text"])
    assert stored["intact"] and document["session_id"] == sid
    texts = {e["id"]: e["text"] for e in document["entries"]}
    assert texts[made[0]["id"]] == "the zebrafish tank needs a heater"
    assert json.loads(document["entries"][1]["content_json"]) == {"mood": "calm"}

    entries = {e["node"]["id"]: e["node"] for e in h.entries(alice, sid)["edges"]}
    assert entries[made[0]["id"]]["text"] is None and entries[made[1]["id"]]["content"] is None
    assert entries[made[1]["id"]]["tags"] == ["mood"]
    assert entries[made[2]["id"]]["content"] == LARGE  # already in object storage: unmoved

    wait_indexed(alice)
    assert _entry_hits(alice, sid, "zebrafish") == []
    assert sid in _summary_sessions(alice, "lighthouse renovation")

    back = alice.data(UNARCHIVE, {"id": sid})["unarchiveSession"]
    assert (back["entriesRestored"], back["objectsDeleted"]) == (4, 1)
    assert back["session"]["status"] == "FLUSHED"
    assert back["session"]["archivedAt"] is None and back["session"]["archiveArtifactId"] is None
    again = {e["node"]["id"]: e["node"] for e in h.entries(alice, sid)["edges"]}
    restored = [(again[e["id"]]["text"], again[e["id"]]["content"]) for e in made[:3]]
    assert restored == [
        ("the zebrafish tank needs a heater", None),
        (None, {"mood": "calm"}),
        ("attached spreadsheet", LARGE),
    ]
    row = neo4j_session.run(ENTRY_IN_GRAPH, id=sid).single()
    assert (row["texts"], row["contents"]) == (3, 1)  # the large content stays in storage
    assert error_code(alice.gql(h.READ_ARTIFACT, {"id": artifact["id"]})) == "NOT_FOUND"
    key = artifact["uri"].removeprefix(f"s3://{settings.s3_bucket}/")
    with pytest.raises(S3Error):
        make_client(settings).stat_object(settings.s3_bucket, key)
    wait_indexed(alice)
    assert _entry_hits(alice, sid, "zebrafish") == [made[0]["id"]]


def test_archive_transitions_and_isolation(alice: Caller, bob: Caller) -> None:
    open_session = h.start(alice)
    h.put(alice, open_session["id"], "still talking")
    refused = error_of(alice.gql(ARCHIVE, {"id": open_session["id"]}))
    assert refused["code"] == "INVALID_TRANSITION" and "endSession" in refused["message"]
    session, _ = _flushed_session(alice)
    sid = session["id"]
    assert error_code(alice.gql(UNARCHIVE, {"id": sid})) == "INVALID_TRANSITION"
    for document in (ARCHIVE, UNARCHIVE):  # another client's session is a missing one
        assert error_code(bob.gql(document, {"id": sid})) == "NOT_FOUND"
        assert error_code(bob.gql(document, {"id": MISSING_ID})) == "NOT_FOUND"
        assert error_code(alice.gql(document, {"id": "not-an-id"})) == "VALIDATION"
    alice.data(ARCHIVE, {"id": sid})
    assert error_code(alice.gql(ARCHIVE, {"id": sid})) == "INVALID_TRANSITION"
    # An archived session is read-only like a flushed one.
    assert error_code(alice.gql(h.PUT, {"input": {"sessionId": sid, "text": "x"}})) == (
        "INVALID_TRANSITION"
    )
    assert bob.data(h.SEARCH_EPISODIC, {"text": "lighthouse"})["searchEpisodicSummaries"] == []


def test_memory_types_map_onto_kinds(alice: Caller, bob: Caller) -> None:
    def remember(**fields: Any) -> Any:
        return alice.gql(REMEMBER, {"input": {"text": "x", **fields}})

    typed = remember(memoryType="INTERACTION", text="called about the invoice")["data"]
    assert typed["remember"]["kind"] == "EPISODIC"
    entity = remember(memoryType="ENTITY", kind="SEMANTIC")["data"]["remember"]
    plain = remember(kind="REFLECTION")["data"]["remember"]  # existing kinds stay valid
    assert plain["kind"] == "REFLECTION"
    refused = error_of(remember(memoryType="ENTITY", kind="WORKING"))
    assert (refused["code"], refused["field"]) == ("VALIDATION", "kind")
    assert "semantic" in refused["message"]
    assert error_of(remember())["field"] == "kind"  # neither: the kind is required

    query = LIST.replace("procedureType", "procedureType memoryType")
    found = alice.data(query, {"where": {"memoryTypes": ["INTERACTION", "ENTITY"]}})["memories"]
    assert {n["id"]: n["memoryType"] for n in found["nodes"]} == {
        typed["remember"]["id"]: "INTERACTION",
        entity["id"]: "ENTITY",
    }
    assert bob.data(query, {"where": {"memoryTypes": ["INTERACTION"]}})["memories"]["nodes"] == []
    session = h.start(alice)
    entry = h.put(alice, session["id"], "hello", memoryType="CONVERSATION")
    assert entry["kind"] == "WORKING"
    body = alice.gql(
        h.PUT, {"input": {"sessionId": session["id"], "text": "x", "memoryType": "USER_PREFERENCE"}}
    )
    assert error_of(body)["field"] == "kind"


def test_agent_state_per_session_beside_the_global_state(alice: Caller, bob: Caller) -> None:
    agent_id = alice.data(SAVE_GLOBAL, {"state": {"mode": "global"}})["saveAgentState"]["id"]
    first, second = h.start(alice), h.start(alice)
    saved = alice.data(SAVE_STATE, {"sid": first["id"], "state": {"step": 1}})
    state = saved["saveAgentSessionState"]
    assert (state["version"], state["state"], state["expiresAt"]) == (1, {"step": 1}, None)
    assert (state["session"]["id"], state["agent"]["name"]) == (first["id"], "brad")
    alice.data(SAVE_STATE, {"sid": second["id"], "state": {"step": 9}, "expected": 0})
    update = {"sid": first["id"], "state": {"step": 2}, "expected": 1}
    assert alice.data(SAVE_STATE, update)["saveAgentSessionState"]["version"] == 2
    stale = error_of(alice.gql(SAVE_STATE, update))
    assert (stale["code"], stale["current_version"]) == ("CONFLICT", 2)

    agent = alice.data(AGENT, {"id": agent_id})["agent"]
    assert (agent["state"], agent["stateVersion"]) == ({"mode": "global"}, 1)
    per_session = {s["sessionId"]: (s["state"], s["version"]) for s in agent["sessionStates"]}
    assert per_session == {first["id"]: ({"step": 2}, 2), second["id"]: ({"step": 9}, 1)}
    read = alice.data(READ_STATE, {"sid": first["id"]})["agentSessionState"]
    assert (read["state"], read["version"]) == ({"step": 2}, 2)
    states = alice.data(SESSION_STATES, {"id": second["id"]})["memorySession"]["agentStates"]
    assert states == [{"agentName": "brad", "state": {"step": 9}}]

    for bad, field in (({"state": [1]}, "state"), ({"ttl": -1}, "ttl_seconds")):
        variables = {"sid": first["id"], "state": {"a": 1}} | bad
        assert error_of(alice.gql(SAVE_STATE, variables))["field"] == field
    other_agent = alice.gql(SAVE_STATE, {"sid": first["id"], "state": {}, "agent": "sue"})
    assert error_code(other_agent) == "FORBIDDEN"
    # Another client's session is a missing one, for writes and reads.
    for sid in (first["id"], MISSING_ID):
        assert error_code(bob.gql(SAVE_STATE, {"sid": sid, "state": {"x": 1}})) == "NOT_FOUND"
        assert bob.data(READ_STATE, {"sid": sid, "agent": "brad"})["agentSessionState"] is None

    assert alice.data(CLEAR_STATE, {"sid": second["id"]})["clearAgentSessionState"] is True
    assert error_code(alice.gql(CLEAR_STATE, {"sid": second["id"]})) == "NOT_FOUND"
    assert alice.data(READ_STATE, {"sid": second["id"]})["agentSessionState"] is None


def test_expired_session_states_are_hidden_then_swept(
    settings: Settings, api_url: str, neo4j_session: Any
) -> None:
    callers = team(settings, api_url, Role.AGENT, Role.ADMIN)
    agent, admin = callers[Role.AGENT], callers[Role.ADMIN]
    session = h.start(agent, agent="agent-bot")
    kept = h.start(agent, agent="agent-bot")
    short = {"sid": session["id"], "state": {"draft": True}, "ttl": 3}
    state = agent.data(SAVE_STATE, short)["saveAgentSessionState"]
    assert state["expiresAt"] is not None
    agent.data(SAVE_STATE, {"sid": kept["id"], "state": {"keep": True}})
    time.sleep(3.5)
    assert agent.data(READ_STATE, {"sid": session["id"]})["agentSessionState"] is None
    # Expired reads as none (a save expecting version 0 starts it again), and reading deletes
    # nothing: the node is there until a sweep purges it. The background sweep of a process
    # sharing the database may come first; that one's purge is in the access log.
    present = neo4j_session.run(
        "MATCH (n:AgentSessionState {id: $id}) RETURN count(n) AS n", id=state["id"]
    ).single()["n"]
    assert present == 1 or _purge_logged(admin, "1 agent session states purged")
    swept = admin.data("mutation { sweepExpiredMemories { agentSessionStatesPurged error } }")
    assert swept["sweepExpiredMemories"]["error"] is None
    # The background sweep of any process sharing the database may have come first: either
    # way the purge is in the client's access log, counted.
    assert _purge_logged(admin, "1 agent session states purged")
    left = neo4j_session.run(
        "MATCH (n:AgentSessionState {client_id: $c}) RETURN collect(n.session_id) AS ids",
        c=agent.client_id,
    ).single()["ids"]
    assert left == [kept["id"]]
    again = agent.data(SAVE_STATE, {"sid": session["id"], "state": {"v": 2}, "expected": 0})
    assert again["saveAgentSessionState"]["version"] == 1
