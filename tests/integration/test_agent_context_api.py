"""Subjects (user profiles), relationship context and getContext over real HTTP, Neo4j and the
embedding worker: upserts, atomic relationship counters, what a context may show (agent,
subject, session, live records only), token budgets, validation codes and isolation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.model.enums import Role
from tests.integration.agent_memory_helpers import concurrently, seed_memory
from tests.integration.asset_helpers import error_code
from tests.integration.conftest import Caller
from tests.integration.search_helpers import wait_indexed

# Reviewer keys: these tests act for several agents (planner, keeper, ...), which an agent key
# may not (it acts only as its own agent).
pytestmark = pytest.mark.callers(role=Role.REVIEWER)


SUBJECT = """mutation($input: SubjectInput!) { upsertSubject(input: $input) {
  id externalRef displayName profile updatedAt agents { name } } }"""
BY_REF = "query($ref: String!) { subjectByRef(externalRef: $ref) { id displayName profile } }"
REL = """type customPrompt memorySettings sessions interactions minutes lastContact startedAt
  subject { externalRef } agent { name }"""
SET_REL = f"mutation($input: RelationshipInput!) {{ setRelationship(input: $input) {{ {REL} }} }}"
TOUCH = f"mutation($input: TouchInput!) {{ touchRelationship(input: $input) {{ {REL} }} }}"
GET_REL = f"""query($subject: String!, $agent: String) {{
  relationship(subject: $subject, agentName: $agent) {{ {REL} }} }}"""
LEARN = """mutation($input: FeedbackInput!) { learnFromFeedback(input: $input) { event { id } } }"""
CONTEXT = """query($input: ContextInput!) { getContext(input: $input) {
  agentName taskType sessionId subject tokenBudget tokensUsed omitted usedIds patternsIncluded
  patterns { totalTasks successRate patterns { pattern count } }
  sessionEntries { tokens record { id text kind } }
  workspaceContext { tokens record { id text } }
  relevantMemories { tokens score why record { id text } } } }"""


def test_subjects_upsert_by_external_ref(alice: Caller, bob: Caller) -> None:
    created = alice.data(
        SUBJECT,
        {"input": {"externalRef": "user-42", "displayName": "Ada", "profile": {"tz": "UTC"}}},
    )["upsertSubject"]
    assert created["profile"] == {"tz": "UTC"} and created["agents"] == []
    renamed = alice.data(SUBJECT, {"input": {"externalRef": "user-42", "displayName": "Ada L."}})
    assert renamed["upsertSubject"]["id"] == created["id"]
    assert renamed["upsertSubject"]["profile"] == {"tz": "UTC"}  # left out: kept
    assert renamed["upsertSubject"]["updatedAt"] > created["updatedAt"]
    found = alice.data(BY_REF, {"ref": "user-42"})["subjectByRef"]
    assert found == {"id": created["id"], "displayName": "Ada L.", "profile": {"tz": "UTC"}}

    assert error_code(bob.gql(BY_REF, {"ref": "user-42"})) == "NOT_FOUND"
    theirs = bob.data(SUBJECT, {"input": {"externalRef": "user-42"}})["upsertSubject"]
    assert theirs["id"] != created["id"] and theirs["displayName"] is None
    for bad in ({"externalRef": " "}, {"externalRef": "u", "profile": [1]}):
        assert error_code(alice.gql(SUBJECT, {"input": bad})) == "VALIDATION", bad


def test_relationship_context_and_atomic_counters(alice: Caller, bob: Caller) -> None:
    rel = {"subject": "user-7", "agentName": "brad", "type": "friend"}
    assert error_code(alice.gql(SET_REL, {"input": rel})) == "NOT_FOUND"  # no subject yet
    alice.data(SUBJECT, {"input": {"externalRef": "user-7"}})
    set_ = alice.data(
        SET_REL,
        {"input": rel | {"customPrompt": "Call her dude.", "memorySettings": {"depth": 10}}},
    )["setRelationship"]
    assert (set_["sessions"], set_["interactions"], set_["minutes"]) == (0, 0, 0.0)
    assert set_["lastContact"] is None and set_["agent"] == {"name": "brad"}
    retyped = alice.data(SET_REL, {"input": rel | {"type": "bro friend"}})["setRelationship"]
    assert retyped["type"] == "bro friend" and retyped["customPrompt"] == "Call her dude."
    assert retyped["memorySettings"] == {"depth": 10}
    assert retyped["startedAt"] == set_["startedAt"]

    touch = {"subject": "user-7", "agentName": "brad", "interactions": 3, "minutes": 2.5}
    bodies = concurrently(alice, TOUCH, [{"input": touch}] * 10)
    assert all(not b.get("errors") for b in bodies), bodies
    now = alice.data(GET_REL, {"subject": "user-7", "agent": "brad"})["relationship"]
    assert (now["sessions"], now["interactions"], now["minutes"]) == (10, 30, 25.0)
    assert now["lastContact"] is not None
    past = touch | {"sessions": 0, "interactions": 1, "minutes": 0, "at": "2020-01-01T00:00:00Z"}
    older = alice.data(TOUCH, {"input": past})["touchRelationship"]
    assert older["lastContact"] == now["lastContact"] and older["interactions"] == 31
    subject = alice.data(SUBJECT, {"input": {"externalRef": "user-7"}})["upsertSubject"]
    assert subject["agents"] == [{"name": "brad"}]

    assert error_code(alice.gql(GET_REL, {"subject": "user-7", "agent": "other"})) == "NOT_FOUND"
    assert error_code(alice.gql(TOUCH, {"input": touch | {"agentName": "x"}})) == "NOT_FOUND"
    assert error_code(bob.gql(GET_REL, {"subject": "user-7", "agent": "brad"})) == "NOT_FOUND"
    assert error_code(bob.gql(TOUCH, {"input": touch})) == "NOT_FOUND"
    for bad in ({"sessions": -1}, {"minutes": -2.0}, {"interactions": 2_000_000}):
        assert error_code(alice.gql(TOUCH, {"input": touch | bad})) == "VALIDATION", bad
    assert error_code(alice.gql(SET_REL, {"input": rel | {"type": "??"}})) == "VALIDATION"


def _context(caller: Caller, **fields: Any) -> dict[str, Any]:
    base = {"agentName": "planner", "taskType": "campaign"}
    return dict(caller.data(CONTEXT, {"input": base | fields})["getContext"])


def _learn(caller: Caller) -> None:
    feedback = {"agentName": "planner", "taskType": "campaign", "success": True}
    caller.data(LEARN, {"input": feedback | {"patterns": ["persona"]}})


def test_get_context_packs_what_the_agent_may_see(
    alice: Caller, bob: Caller, neo4j_session: Any
) -> None:
    seed = lambda **f: seed_memory(neo4j_session, alice, **f)  # noqa: E731
    old_turn = seed(agent="planner", session_id="s-1", kind="working", text="hi", age_s=60)
    new_turn = seed(agent="planner", session_id="s-1", kind="working", text="make a plan")
    seed(agent="planner", session_id="s-2", kind="working", text="another session")
    own = seed(agent="planner", subject="ada", text="Ada prefers short captions", priority=9)
    shared = seed(kind="procedural", text="Brand voice: plain words, no jargon", priority=3)
    seed(agent="writer", text="writer notes")  # another agent's
    seed(agent="planner", subject="bob", text="Bob likes long posts")  # another subject's
    seed(agent="planner", text="forgotten", active=False)
    seed(agent="planner", text="expired", expires_at=datetime.now(UTC) - timedelta(seconds=1))
    _learn(alice)

    # Every visible record is packed before the search hits, so none is left for them.
    full = _context(alice, sessionId="s-1", subject="ada", text="captions", tokenBudget=5000)
    assert full["patterns"]["totalTasks"] == 1 and full["patternsIncluded"]
    assert [e["record"]["id"] for e in full["sessionEntries"]] == [new_turn, old_turn]
    assert [e["record"]["id"] for e in full["workspaceContext"]] == [own, shared]
    assert full["relevantMemories"] == []
    assert full["usedIds"] == [new_turn, old_turn, own, shared]
    assert full["sessionEntries"][1]["tokens"] == 1  # "hi": 2 characters
    assert 0 < full["tokensUsed"] <= 5000 and full["omitted"] == 0

    # 20 tokens: not the patterns (about 60), then every record that still fits, in order.
    tight = _context(alice, sessionId="s-1", subject="ada", text="captions", tokenBudget=20)
    assert not tight["patternsIncluded"] and tight["omitted"] >= 1
    assert tight["tokensUsed"] == sum(
        e["tokens"] for key in ("sessionEntries", "workspaceContext") for e in tight[key]
    )
    assert tight["tokensUsed"] <= 20
    no_subject = _context(alice, sessionId="s-2", text="captions")
    assert [e["record"]["text"] for e in no_subject["sessionEntries"]] == ["another session"]
    assert [e["record"]["id"] for e in no_subject["workspaceContext"]] == [shared]

    nobody = _context(bob, sessionId="s-1", subject="ada", text="captions")
    assert nobody["usedIds"] == [] and nobody["patterns"]["totalTasks"] == 0
    for bad in ({"tokenBudget": 0}, {"taskType": ""}, {"sessionId": "a/b"}, {"limit": 51}):
        body = alice.gql(CONTEXT, {"input": {"taskType": "campaign"} | bad})
        assert error_code(body) == "VALIDATION", bad


def test_get_context_adds_semantically_relevant_memories(alice: Caller, neo4j_session: Any) -> None:
    seed = lambda **f: seed_memory(neo4j_session, alice, **f)  # noqa: E731
    relevant = seed(agent="planner", kind="episodic", text="Tankless water heaters campaign won")
    seed(agent="writer", kind="episodic", text="Tankless water heaters for writers")
    seed(agent="planner", subject="bob", kind="episodic", text="Bob's tankless water heaters")
    seed(agent="planner", session_id="s-9", kind="working", text="tankless water heaters chat")
    seed(agent="planner", kind="episodic", text="tankless water heaters", active=False)
    wait_indexed(alice)

    found = _context(alice, subject="ada", text="tankless water heaters")
    # The others are another agent's, another subject's, another session's or forgotten.
    assert [e["record"]["id"] for e in found["relevantMemories"]] == [relevant]
    assert found["relevantMemories"][0]["score"] > 0 and found["usedIds"] == [relevant]
