"""Idempotent creates (issue 11, finding 9) over real HTTP, Neo4j and S3: a retry with the same
idempotencyKey returns the first result and writes nothing, for every create an agent may
retry; concurrent duplicates create once; the same key with another request is CONFLICT; keys
are per client; expired keys are taken over and purged."""

from __future__ import annotations

import asyncio
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.domain.kernel.idempotency import purge_expired
from app.runtime import connected
from app.settings import Settings
from tests.integration.asset_helpers import error_code
from tests.integration.conftest import Caller
from tests.integration.idempotency_cases import (
    CASES,
    COUNT_RECORDS,
    LESSON,
    REMEMBER,
    REPEATS_SAVE_NOTHING,
    case_caller,
    client_state,
    keyed_input,
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_retry_returns_the_first_result_and_writes_nothing(
    name: str, alice: Caller, neo4j_session: Any, settings: Settings
) -> None:
    caller = case_caller(name, alice, settings, neo4j_session)
    document, variables = CASES[name](caller)
    key = {"k": f"{name}-{uuid.uuid4()}"}
    first = caller.data(document, variables | key)
    written = client_state(neo4j_session, alice.client_id)
    again = caller.data(document, variables | key)
    assert again == first
    assert client_state(neo4j_session, alice.client_id) == written
    fresh = caller.gql(document, variables)
    if name in REPEATS_SAVE_NOTHING:
        assert not fresh.get("errors") and client_state(neo4j_session, alice.client_id) == written
        return
    # Without the key the same request writes again, or is refused as done already (a lesson
    # is superseded once, a link made once): the retry above did neither.
    assert fresh.get("errors") or client_state(neo4j_session, alice.client_id) != written


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
        keyed_input("createLesson", "CreateLessonInput", "id"), {"i": LESSON, "k": "attempt-1"}
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
    feedback = keyed_input(
        "learnFromFeedback", "FeedbackInput", "event { id } performance { total }"
    )
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
