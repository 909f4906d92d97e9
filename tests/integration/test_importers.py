"""`agentmem import` of seed 004's legacy stores against the real Neo4j and S3, read back over
HTTP GraphQL: what each format becomes, a re-import writes nothing, bad lines are reported with
line number and reason, large content lands in object storage first, and another client sees
none of it."""

from __future__ import annotations

import asyncio
import json
import uuid
from getpass import getuser
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.artifacts.store import make_client
from app.cli.admin import create_key
from app.cli.commands import main
from app.domain.legacy import session_id_of
from app.model.enums import Role
from app.settings import Settings
from tests.integration.conftest import Caller, new_caller

SESSION = {
    "session_id": "call-1",
    "user_id": "alice",
    "created_at": "2026-01-10T09:00:00",
    "last_interaction": "2026-01-10T09:04:00Z",
    "session_data": {"device": "kitchen speaker"},
    "session_summary": "Alice planned a trip to Lisbon.",
    "conversation_history": [
        {"role": "user", "content": "Book me a flight to Lisbon", "timestamp": 1768035601},
        {"role": "assistant", "content": "For which day?", "timestamp": "2026-01-10T09:00:05Z"},
        {"role": "user", "content": {"text": "Friday", "slot": "date"}},
    ],
}
SESSION_QUERY = """query($id: ID!) { memorySession(id: $id) {
  status entryCount externalRef metadata sessionType createdAt timelines
  entries(orderBy: CREATED_AT_ASC) {
    text content sourceAgent memoryType kind createdAt rememberedBy { name } }
  summary { text kind summarizes { id } } } }"""
LIST = """query($where: MemoryWhere) { memories(where: $where, first: 50) {
  totalCount nodes { key namespace kind memoryType text content contentUri sessionId
    createdAt expiresAt priority tags } } }"""
RECALL = """query($ns: NamespaceInput, $key: String!) {
  recallMemory(namespace: $ns, key: $key) { id content contentUri text } }"""
LOG = """query($where: AccessLogWhere) { accessLog(where: $where) {
  nodes { operation detail outcome principal } } }"""
COUNT = """MATCH (n) WHERE n.client_id = $client AND (n:MemoryRecord OR n:MemorySession
  OR n:MemorySubject) RETURN count(n) AS nodes"""


def _admin(settings: Settings, api_url: str) -> tuple[str, Caller]:
    name = f"test-import-{uuid.uuid4().hex[:12]}"
    issued = asyncio.run(create_key(settings, client=name, role=Role.ADMIN, agent_name=None))
    caller = Caller(
        httpx.Client(base_url=api_url, timeout=30), issued.secret, issued.principal.client_id
    )
    return name, caller


def _file(tmp_path: Path, lines: list[Any], name: str = "legacy.jsonl") -> Path:
    path = tmp_path / name
    text = [line if isinstance(line, str) else json.dumps(line) for line in lines]
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    return path


def _import(capsys: Any, path: Path, client: str, legacy: str, *extra: str) -> tuple[int, str, str]:
    code = main(["import", str(path), "--client", client, "--format", legacy, *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _nodes(neo4j_session: Any, client_id: str) -> int:
    return int(neo4j_session.run(COUNT, client=client_id).single()["nodes"])


def test_session_memory_agent_lines_become_sessions_once_with_their_rejects_reported(
    settings: Settings, api_url: str, tmp_path: Path, capsys: Any, neo4j_session: Any
) -> None:
    client, alice = _admin(settings, api_url)
    second = SESSION | {"session_id": "call-2", "conversation_history": []}
    del second["session_summary"]
    bad_turn = SESSION | {"session_id": "call-3", "conversation_history": [{"role": "user"}]}
    path = _file(tmp_path, [SESSION, "{not json", bad_turn, "", second, [1, 2]])
    rejects = tmp_path / "rejects.jsonl"

    code, out, err = _import(
        capsys, path, client, "session_memory_agent", "--rejects", str(rejects)
    )
    assert code == 1  # some lines were rejected
    assert "5 lines: 2 imported, 0 already there, 3 rejected; 4 records, 2 sessions" in out
    assert "records/s" in err  # progress on stderr
    rejected = [json.loads(line) for line in rejects.read_text().splitlines()]
    assert [(r["line"], r["code"], r["field"]) for r in rejected] == [
        (2, "VALIDATION", None),
        (3, "VALIDATION", "conversation_history[0].text"),
        (6, "VALIDATION", None),
    ]
    assert (
        rejected[0]["reason"].startswith("not JSON") and "one JSON object" in rejected[2]["reason"]
    )

    session_id = session_id_of(alice.client_id, "call-1")
    session = alice.data(SESSION_QUERY, {"id": session_id})["memorySession"]
    assert (session["status"], session["entryCount"], session["externalRef"]) == (
        "FLUSHED",
        3,
        "sma:call-1",
    )
    assert session["metadata"] == {"device": "kitchen speaker"} and session["timelines"] == ["main"]
    assert session["createdAt"].startswith("2026-01-10T09:00:00")
    entries = session["entries"]
    assert [e["text"] for e in entries] == [
        "Book me a flight to Lisbon",
        "For which day?",
        "Friday",
    ]
    assert entries[2]["content"] == {"text": "Friday", "slot": "date"}
    assert [e["sourceAgent"] for e in entries] == ["user", "assistant", "user"]
    assert {(e["kind"], e["memoryType"]) for e in entries} == {("WORKING", "CONVERSATION")}
    assert {e["rememberedBy"]["name"] for e in entries} == {"session-memory-agent"}
    assert entries[0]["createdAt"].startswith("2026-01-10T09:00:01")
    summary = session["summary"]
    assert summary["text"] == "Alice planned a trip to Lisbon." and summary["kind"] == "EPISODIC"
    assert len(summary["summarizes"]) == 3
    open_one = alice.data(SESSION_QUERY, {"id": session_id_of(alice.client_id, "call-2")})
    assert open_one["memorySession"]["status"] == "OPEN"

    before = _nodes(neo4j_session, alice.client_id)
    code, out, _ = _import(capsys, path, client, "session_memory_agent")
    assert code == 1
    assert "5 lines: 0 imported, 2 already there, 3 rejected; 0 records, 0 sessions" in out
    assert "rejected line 3: VALIDATION (conversation_history[0].text)" in out  # no --rejects
    assert _nodes(neo4j_session, alice.client_id) == before == 6  # 2 sessions, 4 records

    logged = alice.data(LOG, {"where": {"operations": ["import"]}})["accessLog"]["nodes"]
    assert sorted(e["detail"] for e in logged) == [
        "session_memory_agent: 2 lines, 2 nodes",  # both runs: one batch each, found or not
        "session_memory_agent: 2 lines, 2 nodes",
    ]
    assert {(e["outcome"], e["principal"]) for e in logged} == {("OK", "cli:" + getuser())}

    bob = new_caller(settings, api_url, role=Role.ADMIN)
    body = bob.gql(SESSION_QUERY, {"id": session_id})
    assert body["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    assert bob.data(LIST, {"where": None})["memories"]["totalCount"] == 0


def test_contextual_rows_share_their_session_and_large_context_goes_to_object_storage(
    settings: Settings, api_url: str, tmp_path: Path, capsys: Any
) -> None:
    client, alice = _admin(settings, api_url)
    large = {"text": "the trip plan", "steps": [f"step {i}: " + "walk " * 30 for i in range(80)]}
    rows = [
        {
            "context_id": "ctx-1",
            "session_id": "call-1",
            "context_data": {"text": "in Lisbon"},
            "created_at": "2026-01-10T09:01:00Z",
            "expires_at": "2099-01-01T00:00:00Z",
            "source_agent": "planner",
            "tags": ["Travel"],
            "priority": 7,
            "embedding": [0.5] * 8,
        },
        {"context_id": "ctx-2", "session_id": "call-1", "context_data": large},
        {"context_id": "ctx-3", "context_data": {"text": "gone"}, "expires_at": "2020-01-01"},
    ]
    code, out, _ = _import(capsys, _file(tmp_path, rows), client, "contextual_memory")
    assert code == 1 and "3 lines: 2 imported, 0 already there, 1 rejected; 2 records" in out
    assert "rejected line 3: VALIDATION (expires_at): expires_at must be in the future" in out
    code, out, _ = _import(
        capsys, _file(tmp_path, [SESSION], "s.jsonl"), client, "session_memory_agent"
    )
    assert code == 0

    session_id = session_id_of(alice.client_id, "call-1")
    found = alice.data(LIST, {"where": {"sessionId": session_id, "memoryTypes": ["CONTEXT"]}})
    listed = {r["key"]: r for r in found["memories"]["nodes"]}
    assert set(listed) == {"context:ctx-1", "context:ctx-2"}
    first = listed["context:ctx-1"]
    assert first["namespace"] == f"session:{session_id}/context" and first["kind"] == "WORKING"
    assert (first["priority"], first["tags"], first["content"]) == (
        7,
        ["travel"],
        {"text": "in Lisbon"},
    )
    assert first["expiresAt"].startswith("2099-01-01") and first["createdAt"].startswith(
        "2026-01-10T09:01"
    )
    everything = alice.data(LIST, {"where": {"sessionId": session_id}})["memories"]
    assert everything["totalCount"] == 2 + 3 + 1  # the contexts, the turns, the summary

    ns = {"sessionId": session_id, "path": ["context"]}
    recalled = alice.data(RECALL, {"ns": ns, "key": "context:ctx-2"})["recallMemory"]
    assert recalled["content"] == large and recalled["text"] == "the trip plan"
    key = recalled["contentUri"].removeprefix(f"s3://{settings.s3_bucket}/")
    assert key.startswith(f"client/{alice.client_id}/")
    assert (
        make_client(settings).stat_object(settings.s3_bucket, key).size
        > settings.memory_inline_content_max
    )

    code, out, _ = _import(capsys, _file(tmp_path, rows), client, "contextual_memory")
    assert "3 lines: 0 imported, 2 already there, 1 rejected; 0 records" in out
    bob = new_caller(settings, api_url, role=Role.ADMIN)
    assert (
        bob.gql(RECALL, {"ns": ns, "key": "context:ctx-2"})["errors"][0]["extensions"]["code"]
        == "NOT_FOUND"
    )


def test_jarvis_lines_become_subjects_with_preferences_and_keyed_records(
    settings: Settings, api_url: str, tmp_path: Path, capsys: Any
) -> None:
    client, alice = _admin(settings, api_url)
    row = {
        "user_id": "bob",
        "profile_data": {"name": "Bob"},
        "preferences": {"units": "metric", "voice": "calm"},
        "entity_knowledge": {"Rex": {"type": "dog", "description": "Bob's beagle"}},
        "interaction_history": [
            {"timestamp": "2026-01-02T07:00:00Z", "text": "Wake me at 7"},
            {"timestamp": "2026-01-03T07:00:00Z", "text": "Play jazz", "device": "car"},
        ],
        "skill_states": {"alarm": {"next": "07:00", "repeat": True}},
    }
    code, out, _ = _import(
        capsys, _file(tmp_path, [row]), client, "jarvis_memory", "--agent", "jarvis"
    )
    assert code == 0 and "1 lines: 1 imported, 0 already there, 0 rejected; 4 records" in out
    assert "1 subjects" in out
    subjects = alice.data("{ memorySubjects { nodes { externalRef profile preferences active } } }")
    assert subjects["memorySubjects"]["nodes"] == [
        {
            "externalRef": "bob",
            "profile": {"name": "Bob"},
            "preferences": row["preferences"],
            "active": True,
        }
    ]
    found = alice.data(LIST, {"where": {"namespacePrefix": "subject:bob/agent:jarvis"}})["memories"]
    by_type = {(r["memoryType"], r["key"]): r for r in found["nodes"]}
    assert (
        by_type["ENTITY", "Rex"]["text"] == "Bob's beagle"
        and by_type["ENTITY", "Rex"]["kind"] == "SEMANTIC"
    )
    assert by_type["AGENT_STATE", "alarm"]["content"] == {"next": "07:00", "repeat": True}
    interactions = [r for (memory_type, _), r in by_type.items() if memory_type == "INTERACTION"]
    assert sorted(r["text"] for r in interactions) == ["Play jazz", "Wake me at 7"]
    assert all(r["kind"] == "EPISODIC" for r in interactions) and found["totalCount"] == 4

    # A longer history later: only the new interaction is written.
    longer = row | {"interaction_history": [*row["interaction_history"], {"text": "Stop"}]}
    code, out, _ = _import(
        capsys, _file(tmp_path, [longer]), client, "jarvis_memory", "--agent", "jarvis"
    )
    assert (
        "1 lines: 1 imported, 0 already there, 0 rejected; 1 records, 0 sessions, 0 subjects" in out
    )
    code, out, _ = _import(
        capsys, _file(tmp_path, [longer]), client, "jarvis_memory", "--agent", "jarvis"
    )
    assert "1 lines: 0 imported, 1 already there, 0 rejected; 0 records" in out


def test_an_unknown_client_or_a_missing_file_imports_nothing(
    settings: Settings, tmp_path: Path, capsys: Any
) -> None:
    path = _file(tmp_path, [SESSION])
    code, _, err = _import(capsys, path, f"no-such-{uuid.uuid4().hex[:8]}", "session_memory_agent")
    assert code == 2 and "VALIDATION: no client named" in err
    code, _, err = _import(capsys, tmp_path / "missing.jsonl", "x", "jarvis_memory")
    assert code == 2 and "cannot read" in err
    with pytest.raises(SystemExit):
        main(["import", str(path), "--client", "x", "--format", "csv"])
