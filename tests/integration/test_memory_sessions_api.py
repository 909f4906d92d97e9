"""Working-memory sessions (seed 003) over real HTTP, Neo4j and S3: entries on timelines in a
stable order (also under concurrent puts), deletes, flush into one episodic summary linked to
every live entry, read-only flushed sessions, rehydration in both modes, transcripts round
tripped through object storage, search of entries and of summaries, validation and isolation
across clients and sessions."""

from __future__ import annotations

import asyncio
import base64
import hashlib
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

import pytest

from app.artifacts.store import make_client
from app.model.enums import Role
from app.settings import Settings
from tests.integration import session_helpers as h
from tests.integration.asset_helpers import MISSING_ID, error_code, principal_of, store_for
from tests.integration.conftest import Caller, new_caller
from tests.integration.search_helpers import wait_indexed

# Keys of agent brad, whose sessions these tests run (an agent key acts only as itself).
pytestmark = pytest.mark.callers(agent_name="brad")


def _times(found: dict[str, Any]) -> list[datetime]:
    return [datetime.fromisoformat(e["node"]["createdAt"]) for e in found["edges"]]


def test_entries_are_working_records_in_put_order_per_timeline(alice: Caller) -> None:
    session = h.start(alice, metadata={"call": "c-1"})
    assert session["status"] == "OPEN" and session["entryCount"] == 0
    assert session["metadata"] == {"call": "c-1"} and session["timelines"] == []
    texts = [("main", "Hey Brad"), ("planning", "Plan: talk to Sarah"), ("main", "What's up")]
    texts += [("main", "Work is rough"), ("planning", "Backup: HR")]
    made = [h.put(alice, session["id"], text, timeline=t) for t, text in texts]

    first = made[0]
    assert first["kind"] == "WORKING" and first["sessionId"] == session["id"]
    assert first["namespace"] == f"subject:alice/agent:brad/session:{session['id']}/main"
    assert (first["priority"], first["active"], first["version"]) == (5, True, 1)
    assert (first["sourceAgent"], first["agent"], first["subject"]) == ("brad", "brad", "alice")

    everything = h.entries(alice, session["id"])
    assert [e["node"]["id"] for e in everything["edges"]] == [m["id"] for m in made]
    assert everything["totalCount"] == 5
    main = h.entries(alice, session["id"], t="main")
    assert [e["node"]["text"] for e in main["edges"]] == ["Hey Brad", "What's up", "Work is rough"]
    assert main["totalCount"] == 3
    planning = h.entry_ids(alice, session["id"], t="planning")
    assert planning == [made[1]["id"], made[4]["id"]]

    # Keyset pages, oldest first: two, two, one.
    seen: list[str] = []
    after = None
    for expected_next in (True, True, False):
        page = h.entries(alice, session["id"], first=2, after=after)
        assert page["pageInfo"]["hasNextPage"] is expected_next
        seen += [e["node"]["id"] for e in page["edges"]]
        after = page["pageInfo"]["endCursor"]
    assert seen == [m["id"] for m in made]

    state = h.rehydrate(alice, session["id"], "SUMMARY_ONLY")["session"]
    assert state["entryCount"] == 5 and state["timelines"] == ["main", "planning"]
    assert state["lastEntryAt"] == made[-1]["createdAt"]


def test_entries_keep_content_tags_priority_and_speaker(alice: Caller) -> None:
    session = h.start(alice)
    entry = h.put(
        alice,
        session["id"],
        None,
        content={"topic": "work_conflict", "mood": "stressed"},
        tags=["Work", "sarah"],
        priority=9,
        speaker="alice",
        timeline="context",
    )
    assert entry["content"] == {"topic": "work_conflict", "mood": "stressed"}
    assert entry["text"] is None and entry["tags"] == ["work", "sarah"]
    assert (entry["priority"], entry["sourceAgent"], entry["timeline"]) == (9, "alice", "context")


def test_concurrent_puts_get_distinct_strictly_increasing_times(
    settings: Settings, api_url: str
) -> None:
    caller = new_caller(settings, api_url, agent_name="brad")
    session = h.start(caller)

    def put(n: int) -> str:
        return h.put(caller, session["id"], f"entry {n}", timeline=f"t{n % 3}")["id"]

    with ThreadPoolExecutor(max_workers=8) as pool:
        ids = list(pool.map(put, range(24)))
    found = h.entries(caller, session["id"], first=100)
    times = _times(found)
    assert sorted(e["node"]["id"] for e in found["edges"]) == sorted(ids)
    assert all(a < b for a, b in zip(times, times[1:], strict=False)), times
    assert h.rehydrate(caller, session["id"], "SUMMARY_ONLY")["session"]["entryCount"] == 24


def test_start_is_idempotent_by_external_ref(settings: Settings, api_url: str, bob: Caller) -> None:
    # A reviewer key: the clash names agent sue (an agent key acts only as itself).
    alice = new_caller(settings, api_url, role=Role.REVIEWER)
    first = alice.data(h.START, {"input": {"agent": "brad", "externalRef": "call_abc123"}})
    again = alice.data(h.START, {"input": {"agent": "brad", "externalRef": "call_abc123"}})
    assert first["startSession"]["created"] is True
    assert again["startSession"]["created"] is False
    assert again["startSession"]["session"]["id"] == first["startSession"]["session"]["id"]
    clash = alice.gql(h.START, {"input": {"agent": "sue", "externalRef": "call_abc123"}})
    assert error_code(clash) == "CONFLICT"
    # Another client's ref is unrelated: bob gets a session of his own.
    other = bob.data(h.START, {"input": {"agent": "brad", "externalRef": "call_abc123"}})
    assert other["startSession"]["created"] is True
    assert other["startSession"]["session"]["id"] != first["startSession"]["session"]["id"]


def test_delete_entry_soft_and_timeline_hard(alice: Caller) -> None:
    session = h.start(alice)
    sid = session["id"]
    a = h.put(alice, sid, "keep me")
    b = h.put(alice, sid, "forget me")
    c = [h.put(alice, sid, f"scratch {n}", timeline="scratch") for n in range(3)]

    soft = alice.data(h.DELETE_ENTRY, {"id": b["id"]})["deleteSessionEntry"]
    assert soft == {"sessionId": sid, "count": 1}
    assert h.entry_ids(alice, sid) == [a["id"], *(x["id"] for x in c)]
    assert error_code(alice.gql(h.DELETE_ENTRY, {"id": b["id"]})) == "NOT_FOUND"

    hard = {"sid": sid, "t": "scratch", "hard": True}
    assert alice.data(h.DELETE_TIMELINE, hard)["deleteSessionTimeline"]["count"] == 3
    assert alice.data(h.DELETE_TIMELINE, hard)["deleteSessionTimeline"]["count"] == 0
    state = h.rehydrate(alice, sid, "SUMMARY_ONLY")["session"]
    assert state["entryCount"] == 1 and state["timelines"] == ["main"]
    # Reads show live entries only: the soft-deleted one is hidden, the hard-deleted ones gone.
    kept = {e["id"]: e["active"] for e in state["entries"]}
    assert kept == {a["id"]: True}


ATTACH_TO_ENTRY = """mutation($id: ID!, $b64: String!) {
  attachMemoryArtifact(recordId: $id, kind: "transcript", contentBase64: $b64) { id uri } }"""
PURGE_ENTRY = """mutation($id: ID!) {
  deleteSessionEntry(id: $id, hard: true) { sessionId count objectsDeleted } }"""
PURGE_TIMELINE = """mutation($sid: ID!, $t: String!) {
  deleteSessionTimeline(sessionId: $sid, timeline: $t, hard: true) { count objectsDeleted } }"""


def test_hard_deleted_entries_take_their_artifacts_and_unshared_objects(
    settings: Settings, alice: Caller, neo4j_session: Any
) -> None:
    sid = h.start(alice)["id"]
    first = h.put(alice, sid, "the call")
    second = h.put(alice, sid, "the same call, kept elsewhere", timeline="copies")
    data = base64.b64encode(b"Alice: hello\nBrad: hi there\n").decode()
    attached = [
        alice.data(ATTACH_TO_ENTRY, {"id": entry["id"], "b64": data})["attachMemoryArtifact"]
        for entry in (first, second)
    ]
    assert attached[0]["uri"] == attached[1]["uri"]  # content-addressed: one object, shared
    s3 = make_client(settings)
    key = attached[0]["uri"].removeprefix(f"s3://{settings.s3_bucket}/")

    def artifacts_left() -> int:
        ids = [a["id"] for a in attached]
        query = "MATCH (a:MemoryArtifact) WHERE a.id IN $ids RETURN count(a) AS n"
        return int(neo4j_session.run(query, ids=ids).single()["n"])

    purged = alice.data(PURGE_ENTRY, {"id": first["id"]})["deleteSessionEntry"]
    assert purged == {"sessionId": sid, "count": 1, "objectsDeleted": 0}
    assert artifacts_left() == 1
    assert s3.stat_object(settings.s3_bucket, key).size > 0  # the other entry still points at it
    timeline = alice.data(PURGE_TIMELINE, {"sid": sid, "t": "copies"})["deleteSessionTimeline"]
    assert timeline == {"count": 1, "objectsDeleted": 1}
    assert artifacts_left() == 0
    assert not list(s3.list_objects(settings.s3_bucket, prefix=key))


def test_flush_writes_one_summary_linked_to_every_live_entry(alice: Caller) -> None:
    sid = h.start(alice)["id"]
    h.put(alice, sid, "Hey Brad, can you help me with my coworker Sarah?", speaker="alice")
    h.put(alice, sid, "Sure dude. Talk to her directly on Monday.", priority=8)
    gone = h.put(alice, sid, "typo entry")
    h.put(alice, sid, "Plan: document every interaction", timeline="planning", priority=7)
    alice.data(h.DELETE_ENTRY, {"id": gone["id"]})
    live = h.entry_ids(alice, sid)

    ended = alice.data(h.END, {"id": sid})["endSession"]
    summary, session = ended["summary"], ended["session"]
    assert ended["entriesSummarized"] == 3
    assert sorted(x["id"] for x in summary["summarizes"]) == sorted(live)
    assert summary["kind"] == "EPISODIC" and summary["sessionId"] == sid
    assert summary["namespace"] == f"subject:alice/agent:brad/session:{sid}"
    assert summary["text"].startswith("Session of brad with alice: 3 entries on 2 timeline(s)")
    assert "Talk to her directly on Monday" in summary["text"]
    assert summary["content"]["method"] == "extractive"
    assert summary["content"]["entry_count"] == 3
    assert summary["content"]["timelines"] == ["main", "planning"]
    assert summary["priority"] == 8 and summary["tags"] == ["session-summary"]
    assert session["status"] == "FLUSHED" and session["endedAt"] is not None
    assert session["summaryRecordId"] == summary["id"] == session["summary"]["id"]


def test_flushed_session_is_read_only_and_flushes_once(alice: Caller) -> None:
    sid = h.start(alice)["id"]
    entry = h.put(alice, sid, "before the end")
    summary = alice.data(h.END, {"id": sid, "summary": "Agent's own summary."})["endSession"]
    assert summary["summary"]["text"] == "Agent's own summary."
    assert summary["summary"]["content"]["method"] == "agent"

    refused = [
        alice.gql(h.PUT, {"input": {"sessionId": sid, "text": "too late"}}),
        alice.gql(h.DELETE_ENTRY, {"id": entry["id"]}),
        alice.gql(h.DELETE_TIMELINE, {"sid": sid, "t": "main"}),
        alice.gql(h.END, {"id": sid}),
    ]
    for body in refused:
        assert error_code(body) == "INVALID_TRANSITION", body
    extensions = refused[-1]["errors"][0]["extensions"]
    assert extensions["summary_record_id"] == summary["summary"]["id"]
    assert h.entry_ids(alice, sid) == [entry["id"]]


def test_flush_of_an_empty_session_still_summarises_it(alice: Caller) -> None:
    sid = h.start(alice, subject=None)["id"]
    ended = alice.data(h.END, {"id": sid})["endSession"]
    assert ended["entriesSummarized"] == 0
    assert ended["summary"]["text"].startswith("Session of brad with no subject: 0 entries")
    assert ended["summary"]["namespace"] == f"agent:brad/session:{sid}"


def test_rehydrate_summary_only_and_full(alice: Caller) -> None:
    sid = h.start(alice)["id"]
    plan = [("main", "one"), ("side", "two"), ("main", "three"), ("side", "four"), ("x", "five")]
    made = [h.put(alice, sid, text, timeline=t)["id"] for t, text in plan]

    before = h.rehydrate(alice, sid, "FULL")
    assert before["summary"] is None and before["session"]["status"] == "OPEN"
    assert [e["id"] for e in before["entries"]] == made

    alice.data(h.END, {"id": sid})
    brief = h.rehydrate(alice, sid, "SUMMARY_ONLY")
    assert brief["mode"] == "SUMMARY_ONLY" and brief["entries"] == [] and brief["timelines"] == []
    assert brief["summary"]["kind"] == "EPISODIC" and brief["totalEntries"] == 5
    assert brief["truncated"] is False

    full = h.rehydrate(alice, sid, "FULL")
    assert [e["id"] for e in full["entries"]] == made
    assert [e["text"] for e in full["entries"]] == ["one", "two", "three", "four", "five"]
    grouped = {t["name"]: [e["id"] for e in t["entries"]] for t in full["timelines"]}
    assert grouped == {"main": [made[0], made[2]], "side": [made[1], made[3]], "x": [made[4]]}
    assert [t["name"] for t in full["timelines"]] == ["main", "side", "x"]
    assert full["summary"]["id"] == brief["summary"]["id"]

    cut = h.rehydrate(alice, sid, "FULL", limit=2)
    assert [e["id"] for e in cut["entries"]] == made[:2] and cut["truncated"] is True


def test_transcript_round_trip_through_object_storage(settings: Settings, alice: Caller) -> None:
    sid = h.start(alice)["id"]
    alice.data(h.END, {"id": sid})  # transcripts usually arrive after the call
    text = "brad: Yo Al, what's up?\nalice: Got a minute? It's about Sarah. ünïcode ✓\n"
    attached = alice.data(h.ATTACH, {"input": {"sessionId": sid, "text": text}})
    artifact = attached["attachSessionTranscript"]
    data = text.encode()
    prefix = f"s3://{settings.s3_bucket}/client/{alice.client_id}/sessions/{sid}/transcript/"
    assert artifact["uri"] == prefix + hashlib.sha256(data).hexdigest()
    assert artifact["sha256"] == hashlib.sha256(data).hexdigest()
    assert (artifact["size"], artifact["kind"]) == (len(data), "transcript")
    assert artifact["ownerId"] == sid
    assert artifact["contentType"] == "text/plain; charset=utf-8"
    stored = asyncio.run(store_for(settings).get(principal_of(alice), artifact["uri"]))
    assert stored == data

    read = alice.data(h.READ_ARTIFACT, {"id": artifact["id"]})["sessionArtifact"]
    assert read["text"] == text and read["intact"] is True
    assert base64.b64decode(read["contentBase64"]) == data

    binary = bytes(range(256))
    raw = {"sessionId": sid, "contentBase64": base64.b64encode(binary).decode(), "kind": "audio"}
    raw["contentType"] = "audio/wav"
    second = alice.data(h.ATTACH, {"input": raw})["attachSessionTranscript"]
    back = alice.data(h.READ_ARTIFACT, {"id": second["id"]})["sessionArtifact"]
    assert base64.b64decode(back["contentBase64"]) == binary and back["text"] is None
    linked = h.rehydrate(alice, sid, "SUMMARY_ONLY")["session"]["artifacts"]
    assert sorted(a["id"] for a in linked) == sorted([artifact["id"], second["id"]])


def test_search_entries_and_episodic_summaries_stay_in_scope(
    settings: Settings, api_url: str, bob: Caller
) -> None:
    # A reviewer key: sessions of brad and of sue (an agent key acts only as itself).
    alice = new_caller(settings, api_url, role=Role.REVIEWER)
    one, two = h.start(alice)["id"], h.start(alice)["id"]
    mine = h.put(alice, one, "the database migration failed on the orders table")
    side = h.put(alice, one, "database migration rollback plan", timeline="planning")
    h.put(alice, one, "we talked about fantasy football")
    h.put(alice, two, "database migration in the other session")
    flushed = h.start(alice)["id"]
    h.put(alice, flushed, "Alice has a conflict with coworker Sarah about the quarterly roadmap")
    h.put(alice, flushed, "Brad: talk to Sarah directly on Monday")
    alice.data(h.END, {"id": flushed})
    other = h.start(alice, subject="bobby", agent="sue")["id"]
    h.put(alice, other, "quarterly roadmap review with Sue")
    alice.data(h.END, {"id": other})
    # The embedding worker indexes in the background; a busy machine may take minutes.
    wait_indexed(alice, timeout_s=900)

    hits = alice.data(h.SEARCH_ENTRIES, {"sid": one, "text": "database migration"})
    found = hits["searchSessionEntries"]
    assert {x["entry"]["id"] for x in found} == {mine["id"], side["id"]}
    assert all(x["entry"]["sessionId"] == one and x["why"] for x in found)
    only = alice.data(h.SEARCH_ENTRIES, {"sid": one, "text": "database migration", "t": "planning"})
    assert [x["entry"]["id"] for x in only["searchSessionEntries"]] == [side["id"]]

    found = alice.data(h.SEARCH_EPISODIC, {"text": "quarterly roadmap"})["searchEpisodicSummaries"]
    assert {x["sessionId"] for x in found} == {flushed, other}
    brad = alice.data(h.SEARCH_EPISODIC, {"text": "quarterly roadmap", "agent": "brad"})
    [hit] = brad["searchEpisodicSummaries"]
    assert (hit["sessionId"], hit["agent"], hit["subject"]) == (flushed, "brad", "alice")
    assert (hit["entryCount"], hit["timelineCount"]) == (2, 1)
    assert hit["summary"]["kind"] == "EPISODIC" and hit["durationSeconds"] >= 0
    about = alice.data(h.SEARCH_EPISODIC, {"text": "quarterly roadmap", "subject": "bobby"})
    assert [x["sessionId"] for x in about["searchEpisodicSummaries"]] == [other]

    # Indexed records of one client are never found by another.
    theirs = bob.data(h.SEARCH_EPISODIC, {"text": "quarterly roadmap"})
    assert theirs["searchEpisodicSummaries"] == []
    refused = bob.gql(h.SEARCH_ENTRIES, {"sid": one, "text": "database migration"})
    assert error_code(refused) == "NOT_FOUND"


def test_another_clients_session_is_missing(settings: Settings, alice: Caller, bob: Caller) -> None:
    sid = h.start(alice)["id"]
    entry = h.put(alice, sid, "alice's secret about the database migration")
    text = {"sessionId": sid, "text": "transcript"}
    artifact = alice.data(h.ATTACH, {"input": text})["attachSessionTranscript"]
    attempts = [
        bob.gql(h.PUT, {"input": {"sessionId": sid, "text": "intrusion"}}),
        bob.gql(h.ENTRIES, {"sid": sid}),
        bob.gql(h.DELETE_ENTRY, {"id": entry["id"]}),
        bob.gql(h.DELETE_TIMELINE, {"sid": sid, "t": "main"}),
        bob.gql(h.REHYDRATE, {"id": sid, "mode": "FULL"}),
        bob.gql(h.ATTACH, {"input": text}),
        bob.gql(h.READ_ARTIFACT, {"id": artifact["id"]}),
        bob.gql(h.END, {"id": sid}),
    ]
    missing = [
        alice.gql(h.PUT, {"input": {"sessionId": MISSING_ID, "text": "x"}}),
        alice.gql(h.REHYDRATE, {"id": MISSING_ID, "mode": "FULL"}),
        alice.gql(h.READ_ARTIFACT, {"id": MISSING_ID}),
    ]
    for body in attempts + missing:
        assert error_code(body) == "NOT_FOUND", body
    assert [e["errors"][0]["message"] for e in attempts[:1]] == [f"no memory session with id {sid}"]
    # Nothing of bob's attempts landed in alice's session, which is still open.
    state = h.rehydrate(alice, sid, "FULL")
    assert [e["id"] for e in state["entries"]] == [entry["id"]]
    assert state["session"]["status"] == "OPEN" and len(state["session"]["artifacts"]) == 1


def test_entries_never_leak_across_sessions(alice: Caller) -> None:
    one, two = h.start(alice)["id"], h.start(alice)["id"]
    a = h.put(alice, one, "in one")
    b = h.put(alice, two, "in two")
    assert h.entry_ids(alice, one) == [a["id"]] and h.entry_ids(alice, two) == [b["id"]]
    alice.data(h.END, {"id": one})
    assert h.entry_ids(alice, two) == [b["id"]]  # flushing one leaves the other open
    assert h.put(alice, two, "still writable")["sessionId"] == two


@pytest.mark.parametrize(
    ("document", "variables", "field"),
    [
        (h.START, {"input": {"agent": "brad smith"}}, "agent"),
        (h.START, {"input": {"agent": "brad", "subject": "a/b"}}, "subject"),
        (h.START, {"input": {"agent": "brad", "metadata": [1, 2]}}, "metadata"),
        (h.START, {"input": {"agent": "brad", "externalRef": " spaced"}}, "external_ref"),
        (h.PUT, {"input": {"sessionId": "not-a-uuid", "text": "x"}}, "session_id"),
        (h.PUT, {"input": {"sessionId": "{sid}", "text": "x", "priority": 11}}, "priority"),
        (h.PUT, {"input": {"sessionId": "{sid}", "text": " "}}, "text"),
        (h.PUT, {"input": {"sessionId": "{sid}", "text": "x", "timeline": "a b"}}, "timeline"),
        (h.PUT, {"input": {"sessionId": "{sid}", "text": "x", "tags": ["#!"]}}, "tags"),
        (h.PUT, {"input": {"sessionId": "{sid}", "content": "plain"}}, "content"),
        (h.END, {"id": "{sid}", "summary": "  "}, "summary"),
        (h.REHYDRATE, {"id": "{sid}", "mode": "FULL", "limit": 0}, "limit"),
        (h.ENTRIES, {"sid": "{sid}", "first": 0}, "first"),
        (h.ATTACH, {"input": {"sessionId": "{sid}"}}, "text"),
        (h.ATTACH, {"input": {"sessionId": "{sid}", "contentBase64": "@@"}}, "contentBase64"),
        (h.ATTACH, {"input": {"sessionId": "{sid}", "text": "x", "kind": "a/b"}}, "kind"),
    ],
)
def test_bad_input_is_refused_with_a_code_before_anything_is_written(
    alice: Caller, document: str, variables: dict[str, Any], field: str
) -> None:
    sid = h.start(alice)["id"]
    filled = _fill(variables, sid)
    body = alice.gql(document, filled)
    assert error_code(body) == "VALIDATION", body
    assert body["errors"][0]["extensions"].get("field") == field, body
    state = h.rehydrate(alice, sid, "FULL")
    assert state["entries"] == [] and state["session"]["status"] == "OPEN"
    assert state["session"]["artifacts"] == []


def test_readers_may_not_write(settings: Settings, api_url: str, alice: Caller) -> None:
    sid = h.start(alice)["id"]
    analyst = new_caller(settings, api_url, role=Role.ANALYST)
    assert error_code(analyst.gql(h.START, {"input": {"agent": "brad"}})) == "FORBIDDEN"
    refused = analyst.gql(h.PUT, {"input": {"sessionId": sid, "text": "x"}})
    assert error_code(refused) == "FORBIDDEN"


def _fill(value: Any, sid: str) -> Any:
    if isinstance(value, dict):
        return {k: _fill(v, sid) for k, v in value.items()}
    return sid if value == "{sid}" else value
