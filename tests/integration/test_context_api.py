"""Bounded context over HTTP (seed 000, 3.4): sections ranked by the task, the token budget
never exceeded, usedIds matching what is returned, raw events only when asked, isolation."""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from neo4j import GraphDatabase

from app.model.enums import Role
from app.settings import Settings
from tests.integration.conftest import Caller, new_caller
from tests.integration.constraint_helpers import create_documents
from tests.integration.search_helpers import wait_indexed
from tests.integration.test_conversations_api import WRITE_SUMMARY, append, create_thread
from tests.integration.test_episodes_api import CLOSE, GET, START
from tests.integration.test_lessons_links_api import age_evidence, create_lesson
from tests.integration.test_plan_graph_api import (
    CONSTRAINTS,
    TRANSITION_PLAN,
    colleague,
    new_node,
)
from tests.integration.test_plans_api import create_plan, error_code

TASK = "Write the Instagram reel script about tankless water heater installation pricing"
RELEVANT_NODES = [
    (
        "IG Reel: tankless heater pricing",
        "Reel for homeowners about tankless water heater "
        "installation prices; CTA comment PRICE for a free estimate.",
    ),
    (
        "Carousel: sizing a water heater",
        "Carousel on how to size a tankless water heater for a family home before installation.",
    ),
    (
        "DM follow-up for heater leads",
        "Reply to homeowners who asked what a tankless water heater install costs.",
    ),
    (
        "Story: install day",
        "Instagram story showing a tankless water heater installation and its price breakdown.",
    ),
]
OTHER_NODES = [
    ("Bakery launch", "Sourdough samples and a chalkboard menu for the bakery opening."),
    ("Tax reminder", "Quarterly tax filing is due on the fifteenth; send receipts."),
    ("Puppy post", "Our office dog Biscuit, a golden retriever puppy, says hello."),
    ("Marathon update", "Training for the Berlin marathon, forty miles a week."),
    ("Yoga retreat", "Weekend yoga retreat in the mountains with meditation sessions."),
    ("Wedding gallery", "A gallery of wedding photography from the summer season."),
]
CONTEXT = """query($input: TaskContextInput!) { context(input: $input) {
  plan { id name status summary constraintsRef tokens }
  constraints { id kbVersionId brandkitVersionId notes tokens }
  planNodes { id title summary score why tokens }
  lessons { id statement effectiveConfidence score why tokens }
  threads { id summaryShort openQuestions score tokens }
  episodes { id agentName outputSummary tokens }
  rawEvents { id threadId sequence text tokens }
  usedIds tokenBudget tokensUsed omitted } }"""
SECTIONS = ("planNodes", "lessons", "threads", "episodes", "rawEvents")


def _episode(caller: Caller, agent: str, summary: str) -> str:
    started = caller.data(
        START, {"i": {"taskClass": "llm.creator", "trigger": "PLANNER_TICK", "agentName": agent}}
    )["startEpisode"]
    caller.data(CLOSE, {"id": started["id"], "i": {"status": "SUCCESS", "outputSummary": summary}})
    return str(started["id"])


def _world(settings: Settings, api_url: str, neo4j_session: Any) -> dict[str, Any]:
    alice = new_caller(settings, api_url)
    reviewer = colleague(settings, api_url, neo4j_session, alice, Role.REVIEWER)
    plan = create_plan(alice, summary="Launch week for the tankless water heater offer")
    nodes = {
        kind: [new_node(alice, plan["id"], title, summary=text)["id"] for title, text in specs]
        for kind, specs in (("relevant", RELEVANT_NODES), ("other", OTHER_NODES))
    }
    alice.data(TRANSITION_PLAN, {"id": plan["id"], "to": "REVIEWED"})
    documents = create_documents(reviewer)
    approved = reviewer.data(
        TRANSITION_PLAN, {"id": plan["id"], "to": "APPROVED", "constraints": CONSTRAINTS}
    )
    lessons = {
        "strong": create_lesson(
            alice, statement="Price hooks about tankless water heater installs lift reel saves."
        ),
        "decayed": create_lesson(
            alice,
            statement="Reels that show the tankless heater install price early get more comments.",
        ),
        "retired": create_lesson(
            alice, statement="Tankless water heater pricing reels should open with the price."
        ),
        "unrelated": create_lesson(
            alice, statement="Sourdough bakery posts do best on Sunday mornings.", confidence=0.95
        ),
    }
    age_evidence(neo4j_session, lessons["decayed"]["id"], days=10)  # half-life 10: 0.8 -> 0.4
    age_evidence(neo4j_session, lessons["retired"]["id"], days=30)  # 0.8 -> 0.1 < 0.2
    heater = create_thread(alice)["thread"]["id"]
    events = [
        append(alice, heater, f"h-{i}-{uuid.uuid4().hex[:6]}", text)["event"]["id"]
        for i, text in enumerate(
            [
                "How much is a tankless water heater install?",
                "We offer a free estimate!",
                "Great, my address is 12 Elm St.",
            ]
        )
    ]
    alice.data(
        WRITE_SUMMARY,
        {
            "t": heater,
            "s": "Homeowner asked the price of a tankless water heater install; we offered a free "
            "estimate and they sent their address.",
            "q": ["Preferred install date"],
        },
    )
    bread = create_thread(alice)["thread"]["id"]
    append(alice, bread, "b-1", "Do you deliver sourdough on weekends?")
    alice.data(WRITE_SUMMARY, {"t": bread, "s": "Customer asked about weekend bread delivery."})
    episodes = {
        "mine": _episode(alice, "tester", "Wrote the tankless water heater pricing reel script."),
        "theirs": _episode(reviewer, "other-agent", "Wrote a tankless water heater pricing reel."),
    }
    wait_indexed(alice)
    return {
        "alice": alice,
        "plan": plan["id"],
        "snapshot": approved["transitionPlan"]["constraintsRef"],
        "kb_version": documents["KNOWLEDGE_BASE"]["currentVersionId"],
        "nodes": nodes,
        "lessons": {name: lesson["id"] for name, lesson in lessons.items()},
        "threads": {"heater": heater, "bread": bread},
        "events": events,
        "episodes": episodes,
    }


@pytest.fixture(scope="module")
def world(settings: Settings, api_url: str) -> Iterator[dict[str, Any]]:
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        with driver.session(database=settings.neo4j_database) as session:
            yield _world(settings, api_url, session)


def context(caller: Caller, **fields: Any) -> dict[str, Any]:
    return dict(caller.data(CONTEXT, {"input": {"text": TASK} | fields})["context"])


def items(found: dict[str, Any]) -> list[dict[str, Any]]:
    """Every returned item, in packing order."""
    head = [found[name] for name in ("plan", "constraints") if found[name] is not None]
    return head + [item for name in SECTIONS for item in found[name]]


def assert_within_budget(found: dict[str, Any], budget: int) -> None:
    returned = items(found)
    assert found["tokenBudget"] == budget
    assert sum(item["tokens"] for item in returned) == found["tokensUsed"] <= budget
    assert found["usedIds"] == [item["id"] for item in returned]


def test_sections_are_ranked_by_the_task(world: dict[str, Any]) -> None:
    found = context(world["alice"], planId=world["plan"], tokenBudget=8000)
    assert_within_budget(found, 8000)
    assert found["omitted"] == 0
    plan = found["plan"]
    assert plan["id"] == world["plan"] and "tankless" in plan["summary"]
    assert found["constraints"]["id"] == plan["constraintsRef"] == world["snapshot"]
    assert found["constraints"]["kbVersionId"] == world["kb_version"]
    node_ids = [node["id"] for node in found["planNodes"]]
    assert 3 <= len(node_ids) <= 8
    assert set(node_ids[:4]) == set(world["nodes"]["relevant"]), found["planNodes"]
    lessons = world["lessons"]
    assert [lesson["id"] for lesson in found["lessons"]] == [lessons["strong"], lessons["decayed"]]
    strong, decayed = found["lessons"]
    assert strong["effectiveConfidence"] > 0.75 and 0.35 < decayed["effectiveConfidence"] < 0.45
    assert [thread["id"] for thread in found["threads"]] == [world["threads"]["heater"]]
    assert found["threads"][0]["openQuestions"] == ["Preferred install date"]
    assert found["rawEvents"] == [] and found["episodes"] == []
    for item in items(found):
        text = item.get("summary") or item.get("statement") or item.get("summaryShort") or ""
        assert item["tokens"] >= math.ceil(len(text) / 4)


def test_the_budget_is_never_exceeded(world: dict[str, Any]) -> None:
    alice = world["alice"]
    full = context(alice, planId=world["plan"], tokenBudget=8000)
    for budget in (1, 20, 50, 100, 200, 400, 800, 1500, 8000):
        found = context(alice, planId=world["plan"], tokenBudget=budget)
        assert_within_budget(found, budget)
        # The same candidates every time: what did not fit is counted as omitted.
        assert found["omitted"] == len(full["usedIds"]) - len(found["usedIds"]), budget
        raw = context(alice, planId=world["plan"], tokenBudget=budget, includeRawEvents=True)
        assert_within_budget(raw, budget)
    assert context(alice, planId=world["plan"], tokenBudget=1)["usedIds"] == []
    # Priority: a budget of exactly the first items' tokens holds exactly those items.
    ordered = items(full)
    for count in (1, 2, 3):
        budget = sum(item["tokens"] for item in ordered[:count])
        found = context(alice, planId=world["plan"], tokenBudget=budget)
        assert found["usedIds"] == [item["id"] for item in ordered[:count]]
        assert found["tokensUsed"] == budget


UNINDEXED_NODE = """
MATCH (p:Plan {id: $plan})
CREATE (p)-[:HAS_NODE]->(n:PlanNode {id: $id, client_id: p.client_id, plan_id: p.id,
  node_type: 'campaign', title: 'Written around the API', status: 'pending', quality_score: 90,
  created_at: datetime(), updated_at: datetime()})
SET n.indexed_version = n.updated_at
"""


def test_nodes_search_cannot_find_fill_up_to_three(alice: Caller, neo4j_session: Any) -> None:
    plan = create_plan(alice)["id"]
    found = [new_node(alice, plan, title, summary=text)["id"] for title, text in OTHER_NODES[:2]]
    hidden = str(uuid.uuid4())
    neo4j_session.run(UNINDEXED_NODE, plan=plan, id=hidden).consume()
    wait_indexed(alice)
    nodes = context(alice, planId=plan)["planNodes"]
    assert {node["id"] for node in nodes[:2]} == set(found)
    assert nodes[2]["id"] == hidden and nodes[2]["score"] is None
    assert "filled" in nodes[2]["why"][0]


def test_used_ids_store_as_an_episodes_retrieval_refs(world: dict[str, Any]) -> None:
    alice = world["alice"]
    found = context(alice, planId=world["plan"], tokenBudget=600)
    started = alice.data(
        START,
        {
            "i": {
                "taskClass": "llm.creator",
                "trigger": "PLANNER_TICK",
                "retrievalRefs": found["usedIds"],
            }
        },
    )["startEpisode"]
    stored = alice.data(GET, {"id": started["id"]})["agentEpisode"]["retrievalRefs"]
    assert stored == found["usedIds"] and world["plan"] in stored


def test_raw_events_only_when_asked(world: dict[str, Any]) -> None:
    alice = world["alice"]
    assert context(alice)["rawEvents"] == []
    found = context(alice, includeRawEvents=True, tokenBudget=4000)
    assert_within_budget(found, 4000)
    assert [event["id"] for event in found["rawEvents"]] == world["events"]
    assert {event["threadId"] for event in found["rawEvents"]} == {world["threads"]["heater"]}
    assert found["plan"] is None and found["planNodes"] == []


def test_given_threads_replace_the_thread_search(world: dict[str, Any]) -> None:
    bread = world["threads"]["bread"]
    found = context(world["alice"], threadIds=[bread], includeRawEvents=True)
    assert [thread["id"] for thread in found["threads"]] == [bread]
    assert [event["threadId"] for event in found["rawEvents"]] == [bread]


def test_agent_adds_only_its_own_episodes(world: dict[str, Any]) -> None:
    found = context(world["alice"], agent="tester")
    assert [episode["id"] for episode in found["episodes"]] == [world["episodes"]["mine"]]
    assert found["episodes"][0]["agentName"] == "tester"


def test_another_clients_ids_are_not_found(world: dict[str, Any], bob: Caller) -> None:
    missing = str(uuid.uuid4())
    query = {"input": {"text": TASK, "planId": world["plan"]}}
    theirs = bob.gql(CONTEXT, query)
    nothing = bob.gql(CONTEXT, {"input": {"text": TASK, "planId": missing}})
    assert error_code(theirs) == error_code(nothing) == "NOT_FOUND"
    assert theirs["errors"][0]["message"].replace(world["plan"], "X") == nothing["errors"][0][
        "message"
    ].replace(missing, "X")
    thread = bob.gql(CONTEXT, {"input": {"text": TASK, "threadIds": [world["threads"]["heater"]]}})
    assert error_code(thread) == "NOT_FOUND"
    own = context(bob, includeRawEvents=True, agent="tester")
    assert own["usedIds"] == []


def test_bad_input_is_a_typed_error(world: dict[str, Any]) -> None:
    alice = world["alice"]
    bad: list[dict[str, Any]] = [
        {"tokenBudget": 0},
        {"text": "  "},
        {"planId": "nope"},
        {"threadIds": []},
    ]
    for fields in bad:
        body = alice.gql(CONTEXT, {"input": {"text": TASK} | fields})
        assert error_code(body) == "VALIDATION", fields
