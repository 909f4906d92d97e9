"""Seed 001's agent lifecycle over real HTTP, Neo4j and S3: versioned directives and config
overrides, the REMEMBERED relationship (written by remember, and by migration 0036 for older
records), and recallForAgent merging memories with recent action results; typed errors and
isolation across clients throughout."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from neo4j import AsyncGraphDatabase

from app.graph.cypher_files import Migration, load_migrations
from app.graph.executor import GraphExecutor
from app.graph.migrations import migrate
from app.model.enums import Role
from app.settings import Settings
from tests.integration.agent_memory_helpers import seed_memory
from tests.integration.asset_helpers import MISSING_ID
from tests.integration.conftest import Caller
from tests.integration.memory_helpers import error_of, remember
from tests.integration.search_helpers import wait_indexed

VERSION = "id agentName version directives configOverrides author reason createdAt"
SET_CONFIG = f"""mutation($input: AgentConfigInput!) {{ setAgentConfig(input: $input) {{
  {VERSION} agent {{ name }} }} }}"""
AGENT = f"""query($name: String) {{ agentByName(name: $name) {{ name
  config {{ {VERSION} }}
  configVersions(orderBy: CREATED_AT_ASC) {{ version directives configOverrides reason }}
  memories(orderBy: CREATED_AT_ASC) {{ id text rememberedBy {{ name }} }} }} }}"""
VERSION_BY_ID = f"query($id: ID!) {{ agentConfigVersion(id: $id) {{ {VERSION} }} }}"
RECALL = """query($input: AgentRecallInput!) { recallForAgent(input: $input) {
  agentName text memoryCount resultCount
  items { rank source score why searchScore
    record { id agent text content contentUri rememberedBy { name } }
    cycle { id sequence status output error memories { id } } } } }"""
RECORD_CYCLE = """mutation($input: RecordCycleInput!) { recordCycle(input: $input) { id } }"""
COMPLETE = """mutation($id: ID!, $input: CompleteCycleInput!) {
  completeCycle(id: $id, input: $input) { id } }"""
LINKS = """MATCH (a:Agent)-[l:REMEMBERED]->(r:MemoryRecord {client_id: $client_id})
RETURN a.name AS agent, a.client_id AS agent_client, r.id AS record, count(l) AS links"""


def set_config(caller: Caller, **fields: Any) -> dict[str, Any]:
    return dict(caller.data(SET_CONFIG, {"input": {"reason": "tuning"} | fields})["setAgentConfig"])


def agent(caller: Caller, name: str) -> dict[str, Any]:
    return dict(caller.data(AGENT, {"name": name})["agentByName"])


def test_each_config_edit_is_a_new_immutable_version(alice: Caller) -> None:
    first = set_config(
        alice, reason="initial", directives=["Be brief."], configOverrides={"model": "small"}
    )
    assert first["version"] == 1 and first["agent"] == {"name": "tester"}
    assert first["author"] == "agent:tester" and first["reason"] == "initial"
    second = set_config(alice, configOverrides={"model": "large", "temperature": 0.2})
    assert second["version"] == 2 and second["directives"] == ["Be brief."]  # kept
    assert set_config(alice, configOverrides={"temperature": 0.2, "model": "large"}) == second
    stale = alice.gql(
        SET_CONFIG, {"input": {"reason": "x", "directives": [], "expectedVersion": 1}}
    )
    assert error_of(stale)["code"] == "CONFLICT" and "at version 2" in error_of(stale)["message"]
    third = set_config(alice, directives=[], expectedVersion=2, reason="drop directives")
    assert third["version"] == 3 and third["configOverrides"] == second["configOverrides"]

    found = agent(alice, "tester")
    assert found["config"] | {"agent": {"name": "tester"}} == third  # the current one
    assert [(v["version"], v["directives"], v["reason"]) for v in found["configVersions"]] == [
        (1, ["Be brief."], "initial"),
        (2, ["Be brief."], "tuning"),
        (3, [], "drop directives"),
    ]
    assert found["configVersions"][0]["configOverrides"] == {"model": "small"}  # unchanged
    by_id = alice.data(VERSION_BY_ID, {"id": first["id"]})["agentConfigVersion"]
    assert by_id | {"agent": {"name": "tester"}} == first


def test_config_edits_are_checked_bound_and_isolated(alice: Caller, bob: Caller) -> None:
    cases = [
        ({"reason": "x"}, "VALIDATION", "directives"),  # nothing to change
        ({"reason": " ", "directives": []}, "VALIDATION", "reason"),
        ({"reason": "x", "directives": ["ok", ""]}, "VALIDATION", "directives"),
        ({"reason": "x", "configOverrides": [1]}, "VALIDATION", "config_overrides"),
        ({"reason": "x", "directives": [], "expectedVersion": -1}, "VALIDATION", None),
        ({"reason": "x", "directives": [], "agentName": "bad name!"}, "VALIDATION", None),
        ({"reason": "x", "directives": [], "agentName": "someone"}, "FORBIDDEN", None),
    ]
    for fields, code, field in cases:
        error = error_of(alice.gql(SET_CONFIG, {"input": fields}))
        assert error["code"] == code, (fields, error)
        assert field is None or error["field"] == field, error
    # Refused edits wrote nothing: the first edit that passes is version 1.
    mine = set_config(alice, directives=["mine"])
    assert mine["version"] == 1
    theirs = set_config(bob, directives=["theirs"])  # another client's agent of the same name
    assert theirs["version"] == 1
    nothing = bob.gql(VERSION_BY_ID, {"id": MISSING_ID})
    found = bob.gql(VERSION_BY_ID, {"id": mine["id"]})
    assert str(found).replace(mine["id"], MISSING_ID) == str(nothing)
    assert [v["directives"] for v in agent(bob, "tester")["configVersions"]] == [["theirs"]]


def test_remember_links_the_agent_once(alice: Caller, bob: Caller, neo4j_session: Any) -> None:
    keyed = remember(alice, namespace={"agent": "tester"}, key="k", text="first")
    again = remember(alice, namespace={"agent": "tester"}, key="k", text="second")
    assert again["id"] == keyed["id"] and again["version"] == 2
    loose = remember(alice, namespace={"agent": "tester"}, text="loose")
    remember(alice, namespace={"subject": "sam"}, text="no agent")
    remember(bob, namespace={"agent": "tester"}, text="bob's")
    found = agent(alice, "tester")  # created by the first remember
    assert [(m["id"], m["text"]) for m in found["memories"]] == [
        (keyed["id"], "second"),
        (loose["id"], "loose"),
    ]
    assert {m["rememberedBy"]["name"] for m in found["memories"]} == {"tester"}
    links = neo4j_session.run(LINKS, client_id=alice.client_id).data()
    assert sorted((r["record"], r["links"]) for r in links) == sorted(
        [(keyed["id"], 1), (loose["id"], 1)]
    )
    assert {r["agent_client"] for r in links} == {alice.client_id}
    alice.data("mutation($id: ID!) { forgetMemory(id: $id) { id } }", {"id": loose["id"]})
    assert [m["id"] for m in agent(alice, "tester")["memories"]] == [keyed["id"]]


def _link_as_migration_0036(settings: Settings) -> None:
    """Migration 0036's data statement, run again as a migration of its own number."""
    (migration,) = [m for m in load_migrations() if m.version == 36]
    linking = tuple(s for s in migration.statements if "REMEMBERED" in s)
    again = Migration(version=9036, name="relink", statements=linking, checksum="t")

    async def run() -> None:
        auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
        driver = AsyncGraphDatabase.driver(settings.neo4j_uri, auth=auth)
        try:
            await migrate(GraphExecutor(driver, database=settings.neo4j_database), [again])
        finally:
            await driver.close()

    asyncio.run(run())


def test_migration_links_older_records_within_their_client(
    settings: Settings, alice: Caller, bob: Caller, neo4j_session: Any
) -> None:
    # Records written before the relationship existed: only their `agent` property names it.
    a1 = seed_memory(neo4j_session, alice, agent="legacy", text="a1")
    a2 = seed_memory(neo4j_session, alice, agent="legacy", text="a2")
    seed_memory(neo4j_session, alice, subject="sam", text="nobody's")
    b1 = seed_memory(neo4j_session, bob, agent="legacy", text="b1")
    assert error_of(alice.gql(AGENT, {"name": "legacy"}))["code"] == "NOT_FOUND"
    try:
        _link_as_migration_0036(settings)
        _link_as_migration_0036(settings)  # the statement finds nothing left to link
    finally:
        neo4j_session.run("MATCH (m:SchemaMigration {version: 9036}) DELETE m").consume()
    assert {m["id"] for m in agent(alice, "legacy")["memories"]} == {a1, a2}
    assert [m["id"] for m in agent(bob, "legacy")["memories"]] == [b1]
    for caller in (alice, bob):
        links = neo4j_session.run(LINKS, client_id=caller.client_id).data()
        assert {r["agent_client"] for r in links} == {caller.client_id}
        assert all(r["links"] == 1 for r in links)


def _cycle(caller: Caller, thoughts: str, result: dict[str, Any] | None) -> str:
    fields = {"agentName": "planner", "thoughts": thoughts}
    cycle_id = str(caller.data(RECORD_CYCLE, {"input": fields})["recordCycle"]["id"])
    if result is not None:
        caller.data(COMPLETE, {"id": cycle_id, "input": result})
    return cycle_id


@pytest.mark.callers(role=Role.REVIEWER)  # writes the memories of two agents
def test_recall_merges_memories_with_recent_action_results(alice: Caller, bob: Caller) -> None:
    big = {"steps": ["deploy the api gateway"] * 600}  # over the inline limit: stored in S3
    stored = remember(alice, namespace={"agent": "planner"}, text="api deploy runbook", content=big)
    assert stored["contentUri"]
    near = remember(alice, namespace={"agent": "planner"}, text="deploy the api on fridays")
    remember(alice, namespace={"agent": "planner"}, text="lunch order preferences")
    remember(alice, namespace={"agent": "other"}, text="deploy the api quickly")
    remember(bob, namespace={"agent": "planner"}, text="deploy the api for bob")
    matching = _cycle(alice, "deploy", {"status": "SUCCEEDED", "output": {"api": "deployed"}})
    newer = _cycle(alice, "weather", {"status": "FAILED", "error": "timeout"})
    _cycle(alice, "deploy api again", None)  # proposed only: not a result
    wait_indexed(alice)
    wait_indexed(bob)

    query = {"agentName": "planner", "text": "deploy the api", "k": 3, "recentResults": 5}
    found = alice.data(RECALL, {"input": query})["recallForAgent"]
    assert (found["memoryCount"], found["resultCount"]) == (3, 2)
    items = found["items"]
    assert [i["rank"] for i in items] == [1, 2, 3, 4, 5]
    assert [i["score"] for i in items] == sorted((i["score"] for i in items), reverse=True)
    memories = [i["record"] for i in items if i["source"] == "MEMORY"]
    assert {m["agent"] for m in memories} == {"planner"}  # not other's, not bob's
    assert {m["rememberedBy"]["name"] for m in memories} == {"planner"}
    assert {m["id"] for m in memories[:2]} == {stored["id"], near["id"]}
    hydrated = next(m for m in memories if m["id"] == stored["id"])
    assert hydrated["content"] == big  # read back from object storage
    results = [i for i in items if i["source"] == "ACTION_RESULT"]
    # The result holding the query's terms ranks before the newer one that holds none.
    assert [r["cycle"]["id"] for r in results] == [matching, newer]
    assert results[0]["why"] == ["action result #1", "term:api", "term:deploy"]
    assert items[0]["source"] == "MEMORY" and items[1]["source"] == "ACTION_RESULT"
    assert items[1]["cycle"]["output"] == {"api": "deployed"}

    only = alice.data(RECALL, {"input": query | {"recentResults": 0}})["recallForAgent"]
    assert {i["source"] for i in only["items"]} == {"MEMORY"} and only["resultCount"] == 0


def test_recall_is_checked_and_isolated(alice: Caller, bob: Caller) -> None:
    remember(alice, namespace={"agent": "tester"}, text="alice only")
    base = {"agentName": "tester", "text": "alice"}
    cases = [
        ({"text": " "}, "text"),
        ({"k": 0}, "k"),
        ({"recentResults": 51}, "recent_results"),
        ({"where": {"agent": "other"}}, "where"),
        ({"agentName": "bad name!"}, "agent_name"),
    ]
    for fields, field in cases:
        error = error_of(alice.gql(RECALL, {"input": base | fields}))
        assert (error["code"], error["field"]) == ("VALIDATION", field), fields
    # Bob's client has no agent "tester" yet: exactly as a name nobody has.
    theirs = error_of(bob.gql(RECALL, {"input": base}))
    nobody = error_of(bob.gql(RECALL, {"input": base | {"agentName": "nobody"}}))
    assert theirs["code"] == nobody["code"] == "NOT_FOUND"
    assert theirs["message"] == nobody["message"].replace("nobody", "tester")
    remember(bob, namespace={"agent": "tester"}, text="bob's own")
    wait_indexed(bob)
    bobs = bob.data(RECALL, {"input": base})["recallForAgent"]
    assert [i["record"]["text"] for i in bobs["items"]] == ["bob's own"]
