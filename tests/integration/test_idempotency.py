"""Idempotent creates (issue 11, finding 9) over real HTTP, Neo4j and S3: a retry with the same
idempotencyKey returns the first result and writes nothing, for every create an agent may
retry; concurrent duplicates create once; the same key with another request is CONFLICT; keys
are per client; expired keys are taken over and purged."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.domain.idempotency import purge_expired
from app.services.admin import connected
from app.settings import Settings
from tests.integration.asset_helpers import b64, create_asset, create_variant, error_code, own_state
from tests.integration.conftest import Caller

Prepared = tuple[str, dict[str, Any]]
PLAN = {"name": "Retry week", "createdBy": "AGENT", "targetPlatforms": ["IG"]}
LESSON = {
    "scope": "CLIENT",
    "lessonType": "WHAT_WORKED",
    "statement": "Short hooks win",
    "confidence": 0.6,
    "decayHalfLifeDays": 30,
}
REMEMBER = """mutation($i: RememberInput!, $k: String) {
  remember(input: $i, idempotencyKey: $k) { id version key text createdAt } }"""
COUNT_RECORDS = "MATCH (r:MemoryRecord {client_id: $c}) RETURN count(r) AS n, sum(r.version) AS v"


def _m(field: str, args: str, call: str, selection: str) -> str:
    """A mutation document taking $k as the idempotency key."""
    return (
        f"mutation({args}, $k: String) {{ {field}({call}, idempotencyKey: $k) {{ {selection} }} }}"
    )


def _input(field: str, input_type: str, selection: str) -> str:
    return _m(field, f"$i: {input_type}!", "input: $i", selection)


def _one(caller: Caller, document: str, variables: dict[str, Any]) -> Any:
    return next(iter(caller.data(document, variables).values()))


def _plan(c: Caller) -> str:
    return str(_one(c, _input("createPlan", "CreatePlanInput", "id"), {"i": PLAN})["id"])


def _thread(c: Caller) -> str:
    thread = {"platform": "INSTAGRAM", "threadType": "DM", "externalThreadRef": uuid.uuid4().hex}
    doc = """mutation($i: CreateConversationThreadInput!) {
      createConversationThread(input: $i) { thread { id } } }"""
    thread_id = c.data(doc, {"i": thread})["createConversationThread"]["thread"]["id"]
    event = """mutation($i: AppendConversationEventInput!) {
      appendConversationEvent(input: $i) { event { id } } }"""
    said = {"direction": "INBOUND", "eventType": "DM_MESSAGE", "externalRef": "m-1"}
    text = "Hi, how much is a tankless heater install?"
    c.data(event, {"i": said | {"threadId": thread_id, "text": text}})
    return str(thread_id)


def _episode(c: Caller) -> str:
    doc = _input("startEpisode", "StartEpisodeInput", "id")
    return str(_one(c, doc, {"i": {"taskClass": "t", "trigger": "PLANNER_TICK"}})["id"])


def _session(c: Caller) -> str:
    doc = _input("startSession", "StartSessionInput", "created session { id }")
    return str(_one(c, doc, {"i": {"agent": "tester"}})["session"]["id"])


def _record(c: Caller) -> str:
    return str(_one(c, REMEMBER, {"i": {"kind": "SEMANTIC", "text": "a note"}})["id"])


def _lesson(c: Caller) -> str:
    return str(_one(c, _input("createLesson", "CreateLessonInput", "id"), {"i": LESSON})["id"])


def _variant(c: Caller) -> str:
    frame = b64(uuid.uuid4().bytes)  # unique content: variants are deduplicated by checksum
    return str(create_variant(c, create_asset(c)["id"], contentBase64=frame)["id"])


def _run(c: Caller) -> str:
    package = {"planId": _plan(c), "variantIds": [_variant(c)], "targetPlatforms": ["IG"]}
    made = _one(
        c, _input("createPublishPackage", "CreatePublishPackageInput", "id"), {"i": package}
    )
    move = "mutation($id: ID!) { transitionPublishPackage(id: $id, to: PUBLISHING) { id } }"
    c.data(move, {"id": made["id"]})
    doc = _input("startPublishRun", "StartPublishRunInput", "id")
    return str(_one(c, doc, {"i": {"packageId": made["id"], "platform": "IG"}})["id"])


def _relationship(c: Caller) -> None:
    subject = 'mutation { upsertSubject(input: {externalRef: "ada"}) { id } }'
    c.data(subject)
    rel = 'mutation { setRelationship(input: {subject: "ada", type: "friend"}) { type } }'
    c.data(rel)


CASES: dict[str, Callable[[Caller], Prepared]] = {
    "createPlan": lambda c: (_input("createPlan", "CreatePlanInput", "id name"), {"i": PLAN}),
    "createPlanNode": lambda c: (
        _input("createPlanNode", "CreatePlanNodeInput", "id title"),
        {"i": {"planId": _plan(c), "nodeType": "BLUEPRINT_INSTANCE", "title": "Reel"}},
    ),
    "createPlanGraph": lambda c: (
        _input("createPlanGraph", "CreatePlanGraphInput", "plan { id } keys { key nodeId }"),
        {
            "i": {
                "plan": PLAN,
                "nodes": [
                    {"key": "goal", "nodeType": "OBJECTIVE", "title": "Leads"},
                    {"key": "reel", "nodeType": "BLUEPRINT_INSTANCE", "title": "Reel"},
                ],
                "edges": [{"fromKey": "reel", "toKey": "goal", "edgeType": "DEPENDS_ON"}],
            }
        },
    ),
    "createAsset": lambda c: (
        _input("createAsset", "CreateAssetInput", "id title"),
        {"i": {"assetType": "REEL", "title": "Spring reel", "createdBy": "AGENT"}},
    ),
    "createPromptArtifact": lambda c: (
        _input("createPromptArtifact", "CreatePromptArtifactInput", "id promptSha256"),
        {
            "i": {
                "taskClass": "VIDEO_GEN",
                "provider": "acme",
                "model": "reel-1",
                "promptText": "Write the reel",
                "outputRefs": {"assetIds": [create_asset(c)["id"]]},
            }
        },
    ),
    "createApprovalRecord": lambda c: (
        _input("createApprovalRecord", "CreateApprovalRecordInput", "id status"),
        {"i": {"assetId": create_asset(c)["id"], "requiredByPolicy": False}},
    ),
    "createPublishPackage": lambda c: (
        _input("createPublishPackage", "CreatePublishPackageInput", "id status"),
        {"i": {"planId": _plan(c), "variantIds": [_variant(c)], "targetPlatforms": ["IG"]}},
    ),
    "addPublishEvidence": lambda c: (
        _input("addPublishEvidence", "AddPublishEvidenceInput", "id sha256"),
        {"i": {"runId": _run(c), "kind": "LOG", "contentBase64": b64(b"posted ok")}},
    ),
    "createLesson": lambda c: (_input("createLesson", "CreateLessonInput", "id"), {"i": LESSON}),
    "supersedeLesson": lambda c: (
        _m(
            "supersedeLesson",
            "$old: ID!, $new: CreateLessonInput!",
            "oldId: $old, newLesson: $new",
            "id",
        ),
        {"old": _lesson(c), "new": LESSON | {"statement": "Long hooks win"}},
    ),
    "linkRecords": lambda c: (
        _m("linkRecords", "$a: ID!, $b: ID!", "fromId: $a, toId: $b, relation: SUPPORTS", "linkId"),
        {"a": _lesson(c), "b": _lesson(c)},
    ),
    "generateClientSnapshot": lambda c: (
        _m("generateClientSnapshot", "$f: DateTime!, $t: DateTime!", "from: $f, to: $t", "id"),
        {"f": "2026-01-01T00:00:00Z", "t": "2026-02-01T00:00:00Z"},
    ),
    "writeThreadSummary": lambda c: (
        _m(
            "writeThreadSummary",
            "$t: ID!",
            'threadId: $t, summaryShort: "asked a price"',
            "summary { id version }",
        ),
        {"t": _thread(c)},
    ),
    "summarizeThread": lambda c: (
        _m("summarizeThread", "$t: ID!", "threadId: $t", "summary { id version }"),
        {"t": _thread(c)},
    ),
    "startEpisode": lambda c: (
        _input("startEpisode", "StartEpisodeInput", "id agentName"),
        {"i": {"taskClass": "t", "trigger": "PLANNER_TICK"}},
    ),
    "appendToolCalls": lambda c: (
        _m(
            "appendToolCalls",
            "$id: ID!",
            'id: $id, entries: [{tool: "search"}]',
            "id toolCallCount",
        ),
        {"id": _episode(c)},
    ),
    "recordCycle": lambda c: (
        _input("recordCycle", "RecordCycleInput", "id sequence"),
        {"i": {"thoughts": "look around"}},
    ),
    "saveAgentState": lambda c: (
        _m("saveAgentState", "$s: JSON!", "state: $s", "name stateVersion"),
        {"s": {"step": 1}},
    ),
    "learnFromFeedback": lambda c: (
        _input("learnFromFeedback", "FeedbackInput", "event { id } performance { total }"),
        {"i": {"taskType": "captions", "success": True}},
    ),
    "touchRelationship": lambda c: (
        _relationship(c),  # type: ignore[func-returns-value]
        _input("touchRelationship", "TouchInput", "sessions interactions"),
        {"i": {"subject": "ada", "interactions": 2}},
    )[1:],
    "startSession": lambda c: (
        _input("startSession", "StartSessionInput", "created session { id }"),
        {"i": {"agent": "tester"}},
    ),
    "putSessionEntry": lambda c: (
        _input("putSessionEntry", "PutSessionEntryInput", "id createdAt"),
        {"i": {"sessionId": _session(c), "text": "hello"}},
    ),
    "attachSessionTranscript": lambda c: (
        _input("attachSessionTranscript", "AttachSessionTranscriptInput", "id sha256"),
        {"i": {"sessionId": _session(c), "text": "the whole call"}},
    ),
    "remember": lambda c: (REMEMBER, {"i": {"kind": "SEMANTIC", "key": "name", "text": "Ada"}}),
    "putSemanticDocument": lambda c: (
        _m("putSemanticDocument", "$d: JSON!", 'objectId: "o-1", document: $d', "id version"),
        {"d": {"title": "Brand voice"}},
    ),
    "putProcedure": lambda c: (
        _input("putProcedure", "ProcedureInput", "id version"),
        {"i": {"agent": "tester", "name": "greet", "procedureType": "TEMPLATE", "text": "Hi"}},
    ),
    "attachMemoryArtifact": lambda c: (
        _m(
            "attachMemoryArtifact",
            "$r: ID!",
            'recordId: $r, kind: "notes", contentBase64: "aGk="',
            "id sha256",
        ),
        {"r": _record(c)},
    ),
}


# Every node of the client and every relationship from one, with their properties, but not the
# access log or what the embedding worker adds (both are written in the background).
STATE = """
MATCH (n {client_id: $c}) WHERE NOT n:AccessLogEntry
OPTIONAL MATCH (n)-[r]->(m)
WITH n, r, m ORDER BY type(r), m.id, r.role
WITH n, collect([type(r), m.id, properties(r)]) AS rels
RETURN labels(n) AS labels, properties(n) AS props, rels
ORDER BY n.id
"""


def _state(session: Any, client_id: str) -> list[Any]:
    rows = session.run(STATE, c=client_id)
    return [(*own_state(r["labels"], r["props"]), r["rels"]) for r in rows]


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_retry_returns_the_first_result_and_writes_nothing(
    name: str, alice: Caller, neo4j_session: Any
) -> None:
    document, variables = CASES[name](alice)
    key = {"k": f"{name}-{uuid.uuid4()}"}
    first = alice.data(document, variables | key)
    written = _state(neo4j_session, alice.client_id)
    again = alice.data(document, variables | key)
    assert again == first
    assert _state(neo4j_session, alice.client_id) == written
    # Without the key the same request writes again, or is refused as done already (a lesson
    # is superseded once, a link made once): the retry above did neither.
    fresh = alice.gql(document, variables)
    assert fresh.get("errors") or _state(neo4j_session, alice.client_id) != written


def test_remember_retries_keep_one_version_and_other_input_conflicts(
    alice: Caller, bob: Caller, neo4j_session: Any
) -> None:
    note = {"i": {"kind": "SEMANTIC", "key": "diet", "text": "vegetarian"}, "k": "attempt-1"}
    first = alice.data(REMEMBER, note)["remember"]
    assert alice.data(REMEMBER, note)["remember"] == first and first["version"] == 1
    counts = neo4j_session.run(COUNT_RECORDS, c=alice.client_id).single()
    assert (counts["n"], counts["v"]) == (1, 1)
    changed = note | {"i": note["i"] | {"text": "vegan"}}
    refused = alice.gql(REMEMBER, changed)
    assert error_code(refused) == "CONFLICT" and "attempt-1" in refused["errors"][0]["message"]
    other_op = alice.gql(
        _input("createLesson", "CreateLessonInput", "id"), {"i": LESSON, "k": "attempt-1"}
    )
    assert error_code(other_op) == "CONFLICT"
    counts = neo4j_session.run(COUNT_RECORDS, c=alice.client_id).single()
    assert (counts["n"], counts["v"]) == (1, 1)
    # Another client's use of the same key is its own.
    theirs = bob.data(REMEMBER, note)["remember"]
    assert theirs["id"] != first["id"] and theirs["version"] == 1
    assert alice.data(REMEMBER, note | {"k": "attempt-2"})["remember"]["version"] == 2
    bad = alice.gql(REMEMBER, note | {"k": "has space"})
    assert error_code(bad) == "VALIDATION"


def test_concurrent_duplicates_create_once(alice: Caller, neo4j_session: Any) -> None:
    note = {"i": {"kind": "OBSERVATION", "text": "the customer called twice"}, "k": "dup-1"}
    feedback = _input("learnFromFeedback", "FeedbackInput", "event { id } performance { total }")
    learn = {"i": {"taskType": "calls", "success": True}, "k": "dup-2"}
    with ThreadPoolExecutor(max_workers=8) as pool:
        notes = list(pool.map(lambda _: alice.data(REMEMBER, note)["remember"], range(8)))
        learned = list(pool.map(lambda _: alice.data(feedback, learn), range(8)))
    assert len({n["id"] for n in notes}) == 1
    assert neo4j_session.run(COUNT_RECORDS, c=alice.client_id).single()["n"] == 1
    assert len({str(x) for x in learned}) == 1
    totals = neo4j_session.run(
        "MATCH (p:AgentPerformance {client_id: $c}) RETURN p.total AS t", c=alice.client_id
    ).value()
    assert totals == [1]


def test_expired_keys_are_taken_over_and_purged(
    settings: Settings, alice: Caller, neo4j_session: Any
) -> None:
    note = {"i": {"kind": "SEMANTIC", "text": "first"}, "k": "old-key"}
    first = alice.data(REMEMBER, note)["remember"]
    expire = "MATCH (k:IdempotencyKey {client_id: $c}) SET k.expires_at = $at"
    past = datetime.now(UTC) - timedelta(seconds=1)
    neo4j_session.run(expire, c=alice.client_id, at=past).consume()
    second = alice.data(REMEMBER, note | {"i": {"kind": "SEMANTIC", "text": "second"}})["remember"]
    assert second["id"] != first["id"] and second["text"] == "second"
    neo4j_session.run(expire, c=alice.client_id, at=past).consume()

    async def purge() -> int:
        async with connected(settings) as graph:
            return await purge_expired(graph)

    assert asyncio.run(purge()) >= 1
    left = "MATCH (k:IdempotencyKey {client_id: $c}) RETURN count(k)"
    assert neo4j_session.run(left, c=alice.client_id).single()[0] == 0
