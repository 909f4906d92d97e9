"""Conversation memory over real HTTP, Neo4j and S3: idempotent threads and events (also under
concurrent retries), order, long text and media in object storage, the summary queue, summary
versions, the extractive summarizer, isolation and atomicity."""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.model.enums import Role
from app.settings import Settings
from tests.integration.asset_helpers import (
    MISSING_ID,
    b64,
    count,
    error_code,
    principal_of,
    same_client_caller,
    snapshot,
    store_for,
)
from tests.integration.conftest import Caller

THREAD = (
    "id platform threadType externalThreadRef participantExternalRef status handoffState "
    "safetyFlags openQuestions summaryShort summaryLongUri summaryVersion eventCount "
    "eventsSinceSummary needsSummary needsSummaryReason lastEventAt"
)
EVENT = (
    "id threadId platform direction eventType externalRef sequence text textUri textSha256 "
    "mediaUris metadata createdAt"
)
CREATE_THREAD = f"""mutation($input: CreateConversationThreadInput!) {{
  createConversationThread(input: $input) {{ created thread {{ {THREAD} }} }} }}"""
UPDATE_THREAD = f"""mutation($id: ID!, $input: UpdateConversationThreadInput!) {{
  updateConversationThread(id: $id, input: $input) {{ {THREAD} }} }}"""
TRANSITION = f"""mutation($id: ID!, $to: ThreadStatus!) {{
  transitionConversationThread(id: $id, to: $to) {{ {THREAD} }} }}"""
HANDOFF = f"""mutation($id: ID!, $to: HandoffState!) {{
  transitionThreadHandoff(id: $id, to: $to) {{ {THREAD} }} }}"""
APPEND = f"""mutation($input: AppendConversationEventInput!) {{
  appendConversationEvent(input: $input) {{ duplicate event {{ {EVENT} }} }} }}"""
APPEND_MANY = f"""mutation($events: [AppendConversationEventInput!]!) {{
  appendConversationEvents(events: $events) {{
    appended duplicates results {{ duplicate event {{ {EVENT} }} }} }} }}"""
WRITE_SUMMARY = f"""mutation($t: ID!, $s: String!, $l: String, $q: [String!], $c: Int) {{
  writeThreadSummary(threadId: $t, summaryShort: $s, summaryLong: $l, openQuestions: $q,
                     eventsCovered: $c) {{
    summary {{ id version summaryShort summaryLongUri author method eventsCovered threadId }}
    thread {{ {THREAD} }} }} }}"""
SUMMARIZE = f"""mutation($t: ID!) {{ summarizeThread(threadId: $t) {{
  summary {{ id version summaryShort summaryLongUri author method eventsCovered }}
  thread {{ {THREAD} }} }} }}"""
REQUEST = f"mutation($t: ID!) {{ requestThreadSummary(threadId: $t) {{ {THREAD} }} }}"
QUEUE = "query($n: Int!) { threadsNeedingSummary(first: $n) { id needsSummaryReason } }"
EVENTS = f"""query($t: ID!, $after: Int!) {{
  threadEvents(threadId: $t, afterSequence: $after) {{ {EVENT} }} }}"""
TEXT = "query($id: ID!) { conversationEventText(id: $id) }"
GET_THREAD = f"query($id: ID!) {{ conversationThread(id: $id) {{ {THREAD} }} }}"
GET_EVENT = f"query($id: ID!) {{ conversationEvent(id: $id) {{ {EVENT} }} }}"
EVENT_COUNT = "MATCH (e:ConversationEvent {thread_id: $t}) RETURN count(e)"
SEED_92 = [
    ("inbound", "Hi! How much do you charge for a tankless water heater install?"),
    (
        "outbound",
        "Great question! Pricing depends on your home, so we do a free in-home estimate. "
        "Could you share your address and your timeline for the install?",
    ),
]


def create_thread(caller: Caller, ref: str | None = None, **extra: Any) -> dict[str, Any]:
    fields = {
        "platform": "INSTAGRAM",
        "threadType": "DM",
        "externalThreadRef": ref or f"ig:thread:{uuid.uuid4().hex[:10]}",
        "participantExternalRef": "ig:user:456",
    } | extra
    return dict(caller.data(CREATE_THREAD, {"input": fields})["createConversationThread"])


def event_input(thread_id: str, ref: str, text: str | None = "hello", **extra: Any) -> Any:
    return {
        "threadId": thread_id,
        "direction": "INBOUND",
        "eventType": "DM_MESSAGE",
        "externalRef": ref,
        "text": text,
    } | extra


def append(caller: Caller, thread_id: str, ref: str, text: str = "hello", **extra: Any) -> Any:
    payload = caller.data(APPEND, {"input": event_input(thread_id, ref, text, **extra)})
    return payload["appendConversationEvent"]


def thread_of(caller: Caller, thread_id: str) -> dict[str, Any]:
    return dict(caller.data(GET_THREAD, {"id": thread_id})["conversationThread"])


def queue_ids(caller: Caller) -> list[str]:
    return [t["id"] for t in caller.data(QUEUE, {"n": 50})["threadsNeedingSummary"]]


def spaced(start: datetime, n: int, minutes: int = 20) -> list[str]:
    return [(start + timedelta(minutes=minutes * i)).isoformat() for i in range(n)]


def test_thread_create_is_idempotent_per_platform_thread(alice: Caller, neo4j_session: Any) -> None:
    first = create_thread(alice, "ig:thread:123", safetyFlags={"minor": False})
    again = create_thread(alice, "ig:thread:123", participantExternalRef="someone-else")
    thread = first["thread"]
    assert first["created"] is True and again["created"] is False
    assert again["thread"] == thread
    assert thread["status"] == "OPEN" and thread["handoffState"] == "NONE"
    assert thread["eventCount"] == 0 and thread["needsSummary"] is False
    assert thread["safetyFlags"] == {"minor": False}
    other_platform = create_thread(alice, "ig:thread:123", platform="FACEBOOK")
    assert other_platform["created"] is True and other_platform["thread"]["id"] != thread["id"]
    query = "MATCH (t:ConversationThread {client_id: $c, external_thread_ref: $r}) RETURN count(t)"
    assert count(neo4j_session, query, c=alice.client_id, r="ig:thread:123") == 2

    refs = [f"ig:thread:race-{n % 2}" for n in range(8)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda ref: create_thread(alice, ref), refs))
    assert sum(r["created"] for r in results) == 2
    assert len({r["thread"]["id"] for r in results}) == 2


def test_thread_update_and_status_machine(alice: Caller) -> None:
    thread_id = create_thread(alice)["thread"]["id"]
    updated = alice.data(
        UPDATE_THREAD,
        {"id": thread_id, "input": {"openQuestions": ["Address"], "safetyFlags": {"spam": 1}}},
    )["updateConversationThread"]
    assert updated["openQuestions"] == ["Address"] and updated["safetyFlags"] == {"spam": 1}
    assert updated["participantExternalRef"] == "ig:user:456"

    def move(to: str) -> Any:
        return alice.gql(TRANSITION, {"id": thread_id, "to": to})

    escalated = move("ESCALATED")["data"]["transitionConversationThread"]
    assert (escalated["status"], escalated["handoffState"]) == ("ESCALATED", "AWAITING_HUMAN")
    assert error_code(move("OPEN")) == "INVALID_TRANSITION"  # a human is still awaited
    assert error_code(move("DORMANT")) == "INVALID_TRANSITION"
    hand = alice.gql(HANDOFF, {"id": thread_id, "to": "NONE"})
    assert error_code(hand) == "INVALID_TRANSITION"
    done = alice.data(HANDOFF, {"id": thread_id, "to": "COMPLETED"})["transitionThreadHandoff"]
    assert (done["status"], done["handoffState"]) == ("ESCALATED", "COMPLETED")
    reopened = move("OPEN")["data"]["transitionConversationThread"]
    assert (reopened["status"], reopened["handoffState"]) == ("OPEN", "NONE")
    for to in ("DORMANT", "OPEN", "CLOSED"):
        assert move(to)["data"]["transitionConversationThread"]["status"] == to
    assert error_code(move("ESCALATED")) == "INVALID_TRANSITION"
    assert error_code(alice.gql(HANDOFF, {"id": thread_id, "to": "AWAITING_HUMAN"})) == (
        "INVALID_TRANSITION"
    )
    assert thread_of(alice, thread_id)["status"] == "CLOSED"


def test_append_is_idempotent_and_ordered(alice: Caller, neo4j_session: Any) -> None:
    thread_id = create_thread(alice)["thread"]["id"]
    when = datetime(2026, 2, 1, 12, 0, tzinfo=UTC)
    times = spaced(when, 3)
    first = append(alice, thread_id, "m1", "hi", occurredAt=times[0], metadata={"lang": "en"})
    assert first["duplicate"] is False
    event = first["event"]
    assert (event["sequence"], event["platform"], event["metadata"]) == (
        1,
        "INSTAGRAM",
        {"lang": "en"},
    )
    assert event["createdAt"].startswith("2026-02-01T12:00:00")
    append(alice, thread_id, "m2", "second", occurredAt=times[1], direction="OUTBOUND")
    retry = append(alice, thread_id, "m1", "a different retry body", occurredAt=times[2])
    assert retry == {"duplicate": True, "event": event}
    append(alice, thread_id, "m3", "third", occurredAt=times[2])
    assert count(neo4j_session, EVENT_COUNT, t=thread_id) == 3
    listed = alice.data(EVENTS, {"t": thread_id, "after": 0})["threadEvents"]
    assert [(e["sequence"], e["externalRef"]) for e in listed] == [(1, "m1"), (2, "m2"), (3, "m3")]
    after = alice.data(EVENTS, {"t": thread_id, "after": 2})["threadEvents"]
    assert [e["externalRef"] for e in after] == ["m3"]
    thread = thread_of(alice, thread_id)
    assert thread["eventCount"] == 3 and thread["eventsSinceSummary"] == 3
    assert thread["lastEventAt"].startswith(times[2][:19])
    rels = "MATCH (:ConversationThread {id: $t})-[:HAS_EVENT]->(e) RETURN count(e)"
    assert count(neo4j_session, rels, t=thread_id) == 3


def test_concurrent_retries_write_one_event_and_sequences_stay_dense(
    alice: Caller, neo4j_session: Any
) -> None:
    thread_id = create_thread(alice)["thread"]["id"]
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        retries = list(pool.map(lambda _: append(alice, thread_id, "same-ref"), range(8)))
        distinct = list(pool.map(lambda n: append(alice, thread_id, f"r{n}"), range(16)))
    assert sum(not r["duplicate"] for r in retries) == 1
    assert len({r["event"]["id"] for r in retries}) == 1
    assert all(not r["duplicate"] for r in distinct)
    sequences = sorted(r["event"]["sequence"] for r in [retries[0], *distinct])
    assert sequences == list(range(1, 18))
    assert count(neo4j_session, EVENT_COUNT, t=thread_id) == 17
    assert thread_of(alice, thread_id)["eventCount"] == 17


def test_batch_append_is_one_transaction_and_idempotent(
    alice: Caller, bob: Caller, neo4j_session: Any
) -> None:
    one = create_thread(alice)["thread"]["id"]
    two = create_thread(alice)["thread"]["id"]
    start = datetime(2026, 1, 1, tzinfo=UTC)
    batch = [
        event_input(one if n % 2 else two, f"b{n}", f"msg {n}", occurredAt=t)
        for n, t in enumerate(spaced(start, 100))
    ]
    batch.append(event_input(one, "b1", "repeated inside the batch"))
    out = alice.data(APPEND_MANY, {"events": batch})["appendConversationEvents"]
    assert (out["appended"], out["duplicates"]) == (100, 1)
    assert out["results"][-1] == {"duplicate": True, "event": out["results"][1]["event"]}
    seq_one = [
        r["event"]["sequence"] for r in out["results"][:100] if r["event"]["threadId"] == one
    ]
    assert seq_one == list(range(1, 51))
    again = alice.data(APPEND_MANY, {"events": batch})["appendConversationEvents"]
    assert (again["appended"], again["duplicates"]) == (0, 101)
    assert [r["event"]["id"] for r in again["results"]] == [
        r["event"]["id"] for r in out["results"]
    ]
    assert count(neo4j_session, EVENT_COUNT, t=one) == 50
    assert thread_of(alice, one)["eventCount"] == 50

    bobs = create_thread(bob)["thread"]["id"]
    before = snapshot(neo4j_session, bob.client_id)
    mixed = [event_input(bobs, "x1"), event_input(one, "x2")]
    assert error_code(bob.gql(APPEND_MANY, {"events": mixed})) == "NOT_FOUND"
    assert snapshot(neo4j_session, bob.client_id) == before
    too_many = [event_input(bobs, f"y{n}") for n in range(501)]
    assert error_code(bob.gql(APPEND_MANY, {"events": too_many})) == "VALIDATION"
    assert snapshot(neo4j_session, bob.client_id) == before


def test_long_text_and_media_go_to_object_storage_first(settings: Settings, alice: Caller) -> None:
    thread_id = create_thread(alice)["thread"]["id"]
    long_text = "We need the whole basement re-plumbed. " * 60 + "✓"
    assert len(long_text) > settings.event_inline_text_max
    media = b"\x89PNG fake screenshot bytes" * 50
    event = append(
        alice,
        thread_id,
        "long",
        long_text,
        media=[{"contentBase64": b64(media), "contentType": "image/png"}],
    )["event"]
    digest = hashlib.sha256(long_text.encode()).hexdigest()
    assert event["text"] is None and event["textSha256"] == digest
    assert event["textUri"].startswith(f"s3://{settings.s3_bucket}/client/{alice.client_id}/")
    store, principal = store_for(settings), principal_of(alice)
    assert asyncio.run(store.get(principal, event["textUri"])).decode() == long_text
    assert alice.data(TEXT, {"id": event["id"]})["conversationEventText"] == long_text
    [media_uri] = event["mediaUris"]
    assert asyncio.run(store.get(principal, media_uri)) == media
    reused = append(alice, thread_id, "reuse", "same photo", mediaUris=[media_uri])["event"]
    assert reused["mediaUris"] == [media_uri]
    short = append(alice, thread_id, "short", "just a line")["event"]
    assert short["text"] == "just a line" and short["textUri"] is None
    assert alice.data(TEXT, {"id": short["id"]})["conversationEventText"] == "just a line"
    retry = append(alice, thread_id, "long", long_text)
    assert retry["duplicate"] is True and retry["event"]["textUri"] == event["textUri"]


def test_summary_queue_every_n_hot_and_requested(settings: Settings, alice: Caller) -> None:
    n = settings.summary_every_n_events
    slow = create_thread(alice)["thread"]["id"]
    times = spaced(datetime(2026, 1, 5, tzinfo=UTC), n, minutes=60)
    for i in range(n - 1):
        append(alice, slow, f"s{i}", occurredAt=times[i])
    assert thread_of(alice, slow)["needsSummary"] is False and slow not in queue_ids(alice)
    append(alice, slow, f"s{n - 1}", occurredAt=times[n - 1])
    queued = thread_of(alice, slow)
    assert (queued["needsSummary"], queued["needsSummaryReason"]) == (True, "every_n_events")

    hot = create_thread(alice)["thread"]["id"]
    k = settings.hot_thread_events
    burst = [datetime(2026, 1, 6, 9, tzinfo=UTC) + timedelta(seconds=10 * i) for i in range(k)]
    for i in range(k):  # 10 s apart: all within the window
        assert thread_of(alice, hot)["needsSummary"] is False
        append(alice, hot, f"h{i}", occurredAt=burst[i].isoformat())
    assert thread_of(alice, hot)["needsSummaryReason"] == "hot_thread"

    quiet = create_thread(alice)["thread"]["id"]
    append(alice, quiet, "q0")
    requested = alice.data(REQUEST, {"t": quiet})["requestThreadSummary"]
    assert (requested["needsSummary"], requested["needsSummaryReason"]) == (True, "requested")
    assert queue_ids(alice) == [slow, hot, quiet]  # longest waiting first

    written = alice.data(WRITE_SUMMARY, {"t": slow, "s": "User asked about pricing."})
    assert written["writeThreadSummary"]["thread"]["needsSummary"] is False
    assert queue_ids(alice) == [hot, quiet]
    for thread_id in (hot, quiet):
        alice.data(WRITE_SUMMARY, {"t": thread_id, "s": "Summarized."})
    assert queue_ids(alice) == []


def test_summary_versions_are_kept(alice: Caller, neo4j_session: Any) -> None:
    thread_id = create_thread(alice)["thread"]["id"]
    for i in range(3):
        append(alice, thread_id, f"e{i}", occurredAt=spaced(datetime(2026, 3, 1, tzinfo=UTC), 3)[i])
    first = alice.data(
        WRITE_SUMMARY, {"t": thread_id, "s": "v1 short", "l": "# v1\nlong form", "q": ["Address"]}
    )["writeThreadSummary"]
    summary = first["summary"]
    assert (summary["version"], summary["method"], summary["eventsCovered"]) == (1, "agent", 3)
    assert summary["author"] == "agent:tester" and summary["threadId"] == thread_id
    assert first["thread"]["summaryShort"] == "v1 short" and first["thread"]["summaryVersion"] == 1
    assert first["thread"]["openQuestions"] == ["Address"]
    assert first["thread"]["summaryLongUri"] == summary["summaryLongUri"]
    second = alice.data(WRITE_SUMMARY, {"t": thread_id, "s": "v2 short", "c": 2})[
        "writeThreadSummary"
    ]
    assert second["summary"]["version"] == 2 and second["thread"]["eventsSinceSummary"] == 1
    assert second["thread"]["summaryShort"] == "v2 short"
    assert second["thread"]["openQuestions"] == ["Address"]  # not given: kept
    query = """query($id: ID!) { conversationThread(id: $id) {
      summaries(orderBy: CREATED_AT_ASC) { version summaryShort } } }"""
    kept = alice.data(query, {"id": thread_id})["conversationThread"]["summaries"]
    assert kept == [
        {"version": 1, "summaryShort": "v1 short"},
        {"version": 2, "summaryShort": "v2 short"},
    ]
    rels = "MATCH (:ConversationThread {id: $t})-[:HAS_SUMMARY]->(s:ThreadSummary) RETURN count(s)"
    assert count(neo4j_session, rels, t=thread_id) == 2


def test_extractive_summary_of_the_seed_example_needs_no_raw_context(
    settings: Settings, alice: Caller
) -> None:
    thread_id = create_thread(alice, "ig:thread:123")["thread"]["id"]
    for i, (direction, text) in enumerate(SEED_92):
        append(alice, thread_id, f"ig:msg:{i}", text, direction=direction.upper())
    out = alice.data(SUMMARIZE, {"t": thread_id})["summarizeThread"]
    summary, thread = out["summary"], out["thread"]
    assert (summary["method"], summary["version"], summary["eventsCovered"]) == ("extractive", 1, 2)
    short = summary["summaryShort"]
    assert "ig:user:456" in short and "tankless water heater install" in short
    assert "free in-home estimate" in short and "awaiting their reply" in short
    assert thread["openQuestions"] == ["Address", "Timeline"]
    long_text = asyncio.run(store_for(settings).get(principal_of(alice), summary["summaryLongUri"]))
    assert b"## Open questions\n- Address\n- Timeline" in long_text
    # Section 10: reading the thread returns its summary in one query, without events.
    body = alice.gql(
        "query($id: ID!) { conversationThread(id: $id) { summaryShort openQuestions status } }",
        {"id": thread_id},
        **{"X-Agentmem-Roundtrips": "1"},
    )
    assert body["data"]["conversationThread"]["summaryShort"] == short
    assert body["extensions"]["cypherRoundTrips"] == 1
    empty = create_thread(alice)["thread"]["id"]
    assert error_code(alice.gql(SUMMARIZE, {"t": empty})) == "VALIDATION"


def test_isolation_between_clients(alice: Caller, bob: Caller, neo4j_session: Any) -> None:
    thread_id = create_thread(alice, "ig:thread:shared")["thread"]["id"]
    event_id = append(alice, thread_id, "a1", "alice's private message")["event"]["id"]
    bobs = create_thread(bob, "ig:thread:shared")
    assert bobs["created"] is True and bobs["thread"]["id"] != thread_id
    before = snapshot(neo4j_session, alice.client_id)
    calls = [
        (GET_THREAD, {"id": "{t}"}),
        (GET_EVENT, {"id": "{e}"}),
        (TEXT, {"id": "{e}"}),
        (EVENTS, {"t": "{t}", "after": 0}),
        (APPEND, {"input": event_input("{t}", "b1")}),
        (APPEND_MANY, {"events": [event_input("{t}", "b2", "x" * 5000)]}),
        (UPDATE_THREAD, {"id": "{t}", "input": {"openQuestions": ["x"]}}),
        (TRANSITION, {"id": "{t}", "to": "CLOSED"}),
        (HANDOFF, {"id": "{t}", "to": "COMPLETED"}),
        (REQUEST, {"t": "{t}"}),
        (WRITE_SUMMARY, {"t": "{t}", "s": "mine now", "l": "long"}),
        (SUMMARIZE, {"t": "{t}"}),
    ]
    for query, template in calls:
        answers = []
        for ids in ({"t": thread_id, "e": event_id}, {"t": MISSING_ID, "e": MISSING_ID}):
            body = bob.gql(query, _fill(template, ids))
            message = str(body["errors"][0]["message"]) if body.get("errors") else ""
            answers.append(
                (error_code(body), message.replace(ids["t"], "?").replace(ids["e"], "?"))
            )
        assert answers[0] == answers[1] and answers[0][0] == "NOT_FOUND", (query, answers)
    assert snapshot(neo4j_session, alice.client_id) == before
    assert thread_id not in [t["id"] for t in bob.data(QUEUE, {"n": 50})["threadsNeedingSummary"]]


def test_rejected_inputs_leave_the_graph_unchanged(
    settings: Settings, alice: Caller, neo4j_session: Any
) -> None:
    thread_id = create_thread(alice)["thread"]["id"]
    append(alice, thread_id, "ok")
    analyst = same_client_caller(settings, neo4j_session, alice, Role.ANALYST)
    before = snapshot(neo4j_session, alice.client_id)
    rejected = [
        (alice, UPDATE_THREAD, {"id": thread_id, "input": {"openQuestions": [""]}}, "VALIDATION"),
        (alice, UPDATE_THREAD, {"id": thread_id, "input": {"safetyFlags": [1]}}, "VALIDATION"),
        (alice, APPEND, {"input": event_input(thread_id, "")}, "VALIDATION"),
        (
            alice,
            APPEND,
            {"input": event_input(thread_id, "n", occurredAt="2026-01-01T00:00:00")},
            "VALIDATION",
        ),
        (
            alice,
            APPEND,
            {"input": event_input(thread_id, "m", media=[{"contentBase64": "!!"}])},
            "VALIDATION",
        ),
        (
            alice,
            APPEND,
            {"input": event_input(thread_id, "u", mediaUris=["s3://x/y"])},
            "NOT_FOUND",
        ),
        (alice, APPEND, {"input": event_input(thread_id, "t", text="x" * 200_001)}, "VALIDATION"),
        (
            alice,
            APPEND_MANY,
            {"events": [event_input(thread_id, "v1"), event_input(MISSING_ID, "v2")]},
            "NOT_FOUND",
        ),
        (alice, WRITE_SUMMARY, {"t": thread_id, "s": "  "}, "VALIDATION"),
        (alice, WRITE_SUMMARY, {"t": thread_id, "s": "ok", "c": 5}, "VALIDATION"),
        (
            alice,
            CREATE_THREAD,
            {"input": {"platform": "INSTAGRAM", "threadType": "DM", "externalThreadRef": ""}},
            "VALIDATION",
        ),
        (analyst, APPEND, {"input": event_input(thread_id, "w")}, "FORBIDDEN"),
        (analyst, REQUEST, {"t": thread_id}, "FORBIDDEN"),
    ]
    for caller, query, variables, code in rejected:
        assert error_code(caller.gql(query, variables)) == code, (query, variables)
    assert snapshot(neo4j_session, alice.client_id) == before


def _fill(template: Any, ids: dict[str, str]) -> Any:
    if isinstance(template, dict):
        return {k: _fill(v, ids) for k, v in template.items()}
    if isinstance(template, list):
        return [_fill(v, ids) for v in template]
    if isinstance(template, str):
        return template.replace("{t}", ids["t"]).replace("{e}", ids["e"])
    return template


@pytest.mark.parametrize("status", ["DORMANT", "CLOSED"])
def test_appending_does_not_change_the_status(alice: Caller, status: str) -> None:
    thread_id = create_thread(alice)["thread"]["id"]
    alice.data(TRANSITION, {"id": thread_id, "to": status})
    append(alice, thread_id, "late")
    assert thread_of(alice, thread_id)["status"] == status
