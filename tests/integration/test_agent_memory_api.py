"""Agent cycles, resumable state and learning from feedback over real HTTP and Neo4j: sequence
numbers under concurrency, PRODUCED links, the cycle status machine, optimistic concurrency on
agent state, resume in one round trip, atomic feedback counters (no lost update), history
pagination, validation codes and isolation across clients."""

from __future__ import annotations

from typing import Any

import pytest

from app.model.enums import Role
from app.settings import Settings
from tests.integration.agent_memory_helpers import concurrently, counted, seed_memory
from tests.integration.asset_helpers import MISSING_ID, error_code
from tests.integration.conftest import Caller, new_caller

# Reviewer keys: these tests act for several agents (planner, keeper, ...), which an agent key
# may not (it acts only as its own agent).
pytestmark = pytest.mark.callers(role=Role.REVIEWER)


CYCLE = "id agentName sequence thoughts toolCall plan output error status finishedAt"
RECORD = f"""mutation($input: RecordCycleInput!) {{ recordCycle(input: $input) {{
  {CYCLE} agent {{ name }} memories {{ id }} }} }}"""
COMPLETE = f"""mutation($id: ID!, $input: CompleteCycleInput!) {{
  completeCycle(id: $id, input: $input) {{ {CYCLE} memories {{ id }} }} }}"""
SAVE = """mutation($agent: String, $state: JSON!, $expected: Int) {
  saveAgentState(agentName: $agent, state: $state, expectedVersion: $expected) {
    name state stateVersion } }"""
RESUME = """query($agent: String) { agentResume(agentName: $agent) {
  state stateVersion cycleCount
  agent { name stateVersion cycles(first: 2) { sequence } }
  latestCycle { sequence status thoughts memories { id kind } agent { name } } } }"""
LEARN = """mutation($input: FeedbackInput!) { learnFromFeedback(input: $input) {
  event { id agentName taskType success rating patterns comment }
  performance { total successes ratingSum ratingCount patterns }
  patterns { totalTasks successRate } } }"""
PATTERNS = """query($agent: String, $task: String) {
  agentPatterns(agentName: $agent, taskType: $task) {
  agentName taskType taskTypes totalTasks successfulTasks successRate avgRating ratingCount
  patterns { pattern count successes successRate avgRating ratingCount } } }"""
HISTORY = """query($agent: String, $task: String, $first: Int!, $after: String) {
  feedbackHistory(agentName: $agent, taskType: $task, first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor } nodes { id taskType success } } }"""


def record(caller: Caller, **fields: Any) -> dict[str, Any]:
    return dict(caller.data(RECORD, {"input": fields})["recordCycle"])


def learn(caller: Caller, **fields: Any) -> dict[str, Any]:
    return dict(caller.data(LEARN, {"input": {"agentName": "planner", **fields}}))


def test_cycles_are_numbered_linked_to_memories_and_completed_once(
    alice: Caller, neo4j_session: Any
) -> None:
    m1 = seed_memory(
        neo4j_session, alice, agent="planner", text="observed a spike", kind="observation"
    )
    m2 = seed_memory(neo4j_session, alice, agent="planner", text="the result", kind="result")
    first = record(
        alice,
        agentName="planner",
        thoughts="check the metrics",
        toolCall={"name": "metrics.read", "args": {"days": 7}},
        plan=["read", "summarise"],
        memoryIds=[m1],
    )
    assert first["sequence"] == 1 and first["status"] == "PROPOSED"
    assert first["toolCall"] == {"name": "metrics.read", "args": {"days": 7}}
    assert first["plan"] == ["read", "summarise"] and first["finishedAt"] is None
    assert first["agent"] == {"name": "planner"} and first["memories"] == [{"id": m1}]
    assert record(alice, agentName="planner", thoughts="next")["sequence"] == 2

    done = alice.data(
        COMPLETE,
        {
            "id": first["id"],
            "input": {"status": "SUCCEEDED", "output": {"rows": 3}, "memoryIds": [m2]},
        },
    )["completeCycle"]
    assert done["status"] == "SUCCEEDED" and done["output"] == {"rows": 3}
    assert done["finishedAt"] is not None
    assert {m["id"] for m in done["memories"]} == {m1, m2}

    again = alice.gql(COMPLETE, {"id": first["id"], "input": {"status": "FAILED", "error": "x"}})
    assert error_code(again) == "INVALID_TRANSITION"
    back = alice.gql(COMPLETE, {"id": first["id"], "input": {"status": "PROPOSED"}})
    assert error_code(back) == "VALIDATION"


def test_concurrent_cycles_of_one_agent_get_distinct_sequences(alice: Caller) -> None:
    variables = [{"input": {"agentName": "racer", "thoughts": f"t{i}"}} for i in range(12)]
    bodies = concurrently(alice, RECORD, variables)
    assert all(not body.get("errors") for body in bodies), bodies
    assert sorted(b["data"]["recordCycle"]["sequence"] for b in bodies) == list(range(1, 13))


def test_cycle_validation_and_isolation(alice: Caller, bob: Caller, neo4j_session: Any) -> None:
    bobs_memory = seed_memory(neo4j_session, bob, agent="planner", text="bob's")
    forgotten = seed_memory(neo4j_session, alice, agent="planner", text="gone", active=False)
    cases = [
        ({"agentName": "planner"}, "VALIDATION"),  # no proposal at all
        ({"agentName": "bad name!", "thoughts": "x"}, "VALIDATION"),
        ({"agentName": "planner", "toolCall": [1, 2]}, "VALIDATION"),  # not an object
        ({"agentName": "planner", "thoughts": "x", "memoryIds": ["nope"]}, "VALIDATION"),
        ({"agentName": "planner", "thoughts": "x", "memoryIds": [bobs_memory]}, "NOT_FOUND"),
        ({"agentName": "planner", "thoughts": "x", "memoryIds": [forgotten]}, "NOT_FOUND"),
        ({"agentName": "planner", "thoughts": "x", "memoryIds": [MISSING_ID]}, "NOT_FOUND"),
    ]
    for fields, code in cases:
        assert error_code(alice.gql(RECORD, {"input": fields})) == code, fields
    # Nothing was written by the refused calls: the agent's first cycle is number 1.
    assert record(alice, agentName="planner", thoughts="ok")["sequence"] == 1
    bobs_cycle = record(bob, agentName="planner", thoughts="bob")
    missing = alice.gql(COMPLETE, {"id": bobs_cycle["id"], "input": {"status": "SUCCEEDED"}})
    assert error_code(missing) == "NOT_FOUND"
    assert "agentCycle" not in str(missing.get("data") or {})


def test_state_saves_with_optimistic_concurrency(alice: Caller, bob: Caller) -> None:
    saved = alice.data(SAVE, {"agent": "keeper", "state": {"step": 1}, "expected": 0})
    assert saved["saveAgentState"] == {"name": "keeper", "state": {"step": 1}, "stateVersion": 1}
    stale = alice.gql(SAVE, {"agent": "keeper", "state": {"step": 9}, "expected": 0})
    assert error_code(stale) == "CONFLICT"
    extensions = stale["errors"][0]["extensions"]
    assert extensions["current_version"] == 1 and extensions["expected_version"] == 0
    blind = alice.data(SAVE, {"agent": "keeper", "state": {"step": 2}})["saveAgentState"]
    assert blind["stateVersion"] == 2 and blind["state"] == {"step": 2}

    # Five writers that all read version 2: exactly one wins, the others are refused.
    racers = [{"agent": "keeper", "state": {"writer": i}, "expected": 2} for i in range(5)]
    bodies = concurrently(alice, SAVE, racers)
    winners = [b for b in bodies if not b.get("errors")]
    assert len(winners) == 1
    assert sorted(error_code(b) for b in bodies if b.get("errors")) == ["CONFLICT"] * 4
    resumed = alice.data(RESUME, {"agent": "keeper"})["agentResume"]
    assert resumed["stateVersion"] == 3
    assert resumed["state"] == winners[0]["data"]["saveAgentState"]["state"]

    bad = alice.gql(SAVE, {"agent": "keeper", "state": [1], "expected": None})
    assert error_code(bad) == "VALIDATION"
    assert error_code(alice.gql(SAVE, {"state": {}, "expected": -1})) == "VALIDATION"
    # Bob's agent of the same name is his own.
    assert bob.data(SAVE, {"agent": "keeper", "state": {}})["saveAgentState"]["stateVersion"] == 1


def test_resume_reads_state_and_latest_cycle_in_one_round_trip(
    alice: Caller, bob: Caller, neo4j_session: Any
) -> None:
    memory = seed_memory(neo4j_session, alice, agent="resumer", text="made", kind="result")
    record(alice, agentName="resumer", thoughts="first")
    record(alice, agentName="resumer", thoughts="second", memoryIds=[memory])
    alice.data(SAVE, {"agent": "resumer", "state": {"cursor": "abc"}})

    data, trips = counted(alice, RESUME, {"agent": "resumer"})
    assert trips == 1
    resumed = data["agentResume"]
    assert resumed["state"] == {"cursor": "abc"} and resumed["stateVersion"] == 1
    assert resumed["cycleCount"] == 2
    assert resumed["agent"]["cycles"] == [{"sequence": 2}, {"sequence": 1}]
    latest = resumed["latestCycle"]
    assert latest["sequence"] == 2 and latest["thoughts"] == "second"
    assert latest["memories"] == [{"id": memory, "kind": "RESULT"}]
    assert latest["agent"] == {"name": "resumer"}

    alice.data(SAVE, {"agent": "no-cycles", "state": {"a": 1}})
    idle = alice.data(RESUME, {"agent": "no-cycles"})["agentResume"]
    assert idle["latestCycle"] is None and idle["cycleCount"] == 0 and idle["state"] == {"a": 1}
    assert error_code(alice.gql(RESUME, {"agent": "nobody-here"})) == "NOT_FOUND"
    assert error_code(bob.gql(RESUME, {"agent": "resumer"})) == "NOT_FOUND"


def test_feedback_updates_patterns_and_keeps_history(alice: Caller, bob: Caller) -> None:
    learn(alice, taskType="campaign", success=True, rating=5, patterns=["persona", "urgency"])
    learn(alice, taskType="campaign", success=False, rating=2, patterns=["urgency"])
    got = learn(alice, taskType="campaign", success=True, patterns=["persona"], comment="ok")
    event = got["learnFromFeedback"]["event"]
    assert event["rating"] is None and event["comment"] == "ok"
    assert got["learnFromFeedback"]["patterns"] == {"totalTasks": 3, "successRate": 2 / 3}
    learn(alice, taskType="captions", success=True, rating=4, patterns=["persona"])

    one = alice.data(PATTERNS, {"agent": "planner", "task": "campaign"})["agentPatterns"]
    assert (one["totalTasks"], one["successfulTasks"], one["ratingCount"]) == (3, 2, 2)
    assert one["avgRating"] == 3.5 and one["taskTypes"] == ["campaign"]
    assert one["patterns"] == [
        {
            "pattern": "persona",
            "count": 2,
            "successes": 2,
            "successRate": 1.0,
            "avgRating": 5.0,
            "ratingCount": 1,
        },
        {
            "pattern": "urgency",
            "count": 2,
            "successes": 1,
            "successRate": 0.5,
            "avgRating": 3.5,
            "ratingCount": 2,
        },
    ]
    every = alice.data(PATTERNS, {"agent": "planner"})["agentPatterns"]
    assert every["taskType"] is None and every["taskTypes"] == ["campaign", "captions"]
    assert every["totalTasks"] == 4 and every["patterns"][0]["pattern"] == "persona"
    assert every["patterns"][0]["count"] == 3 and every["avgRating"] == 11 / 3

    page = alice.data(HISTORY, {"agent": "planner", "first": 3})["feedbackHistory"]
    assert page["totalCount"] == 4 and page["pageInfo"]["hasNextPage"]
    assert page["nodes"][0]["taskType"] == "captions"  # newest first
    rest = alice.data(
        HISTORY, {"agent": "planner", "first": 3, "after": page["pageInfo"]["endCursor"]}
    )["feedbackHistory"]
    assert len(rest["nodes"]) == 1 and not rest["pageInfo"]["hasNextPage"]
    assert {n["id"] for n in page["nodes"] + rest["nodes"]} == {
        n["id"]
        for n in alice.data(HISTORY, {"agent": "planner", "first": 10})["feedbackHistory"]["nodes"]
    }
    only = alice.data(HISTORY, {"agent": "planner", "task": "captions", "first": 10})
    assert only["feedbackHistory"]["totalCount"] == 1

    theirs = bob.data(PATTERNS, {"agent": "planner"})["agentPatterns"]
    assert theirs["totalTasks"] == 0 and theirs["successRate"] is None and theirs["patterns"] == []
    assert bob.data(HISTORY, {"agent": "planner", "first": 5})["feedbackHistory"]["totalCount"] == 0


def test_concurrent_feedback_loses_no_update(alice: Caller) -> None:
    requests = [
        {
            "input": {
                "agentName": "busy",
                "taskType": "replies",
                "success": i % 4 != 0,
                "rating": float(i % 5 + 1),
                "patterns": ["short"] if i % 2 else ["short", "emoji"],
            }
        }
        for i in range(20)
    ]
    bodies = concurrently(alice, LEARN, requests)
    assert all(not body.get("errors") for body in bodies), [
        b["errors"] for b in bodies if b.get("errors")
    ]
    patterns = alice.data(PATTERNS, {"agent": "busy", "task": "replies"})["agentPatterns"]
    assert patterns["totalTasks"] == 20
    assert patterns["successfulTasks"] == sum(1 for i in range(20) if i % 4 != 0)
    assert patterns["ratingCount"] == 20
    assert patterns["avgRating"] == sum(i % 5 + 1 for i in range(20)) / 20
    counts = {p["pattern"]: p["count"] for p in patterns["patterns"]}
    assert counts == {"short": 20, "emoji": 10}
    history = alice.data(HISTORY, {"agent": "busy", "first": 1})["feedbackHistory"]
    assert history["totalCount"] == 20


def test_feedback_validation(alice: Caller, settings: Settings, api_url: str) -> None:
    cases = [
        {"taskType": "campaign", "success": True, "rating": 7},
        {"taskType": "campaign", "success": True, "rating": -1},
        {"taskType": " ", "success": True},
        {"taskType": "bad\ttype", "success": True},
        {"taskType": "campaign", "success": True, "patterns": ["x" * 101]},
        {"taskType": "campaign", "success": True, "patterns": [f"p{i}" for i in range(21)]},
        {"taskType": "campaign", "success": True, "comment": "c" * 2001},
    ]
    for fields in cases:
        body = alice.gql(LEARN, {"input": {"agentName": "strict", **fields}})
        assert error_code(body) == "VALIDATION", fields
    nothing = alice.data(PATTERNS, {"agent": "strict"})["agentPatterns"]
    assert nothing["totalTasks"] == 0
    assert error_code(alice.gql(PATTERNS, {"agent": "strict", "task": ""})) == "VALIDATION"
    analyst = new_caller(settings, api_url, role=Role.ANALYST)
    refused = analyst.gql(
        LEARN, {"input": {"agentName": "strict", "taskType": "t", "success": True}}
    )
    assert error_code(refused) == "FORBIDDEN"
    assert analyst.data(PATTERNS, {"agent": "strict"})["agentPatterns"]["totalTasks"] == 0
