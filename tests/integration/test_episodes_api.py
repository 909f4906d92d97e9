"""Agent episodes over real HTTP, Neo4j and S3 (seed 000, 7 and 10): the lifecycle and its
JSON-lines log in S3, immutability after close, episode trees, replay with hydrated reads and
constraints snapshots, and client isolation."""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import json
from typing import Any

import httpx
import pytest

from app.cli.admin import create_key
from app.domain.kernel.errors import NotFound
from app.model.enums import Role
from app.settings import Settings
from tests.integration.asset_helpers import (
    CREATE_PLAN,
    MISSING_ID,
    create_asset,
    error_code,
    principal_of,
    same_client_caller,
    snapshot,
    store_for,
)
from tests.integration.conftest import Caller, new_caller
from tests.integration.constraint_helpers import CONTENT, KIND_ORDER, create_documents, edit

EPISODE = "id agentName taskClass trigger inputRefs retrievalRefs toolCallLogUri "
EPISODE += "toolCallLogSha256 outputSummary status costTokensEst latencyMs parentEpisodeId closedAt"
START = f"mutation($i: StartEpisodeInput!) {{ startEpisode(input: $i) {{ {EPISODE} }} }}"
LINK = f"""mutation($id: ID!, $r: [EpisodeLinkInput!], $w: [EpisodeLinkInput!]) {{
  linkEpisodeRecords(id: $id, reads: $r, writes: $w) {{ {EPISODE}
    readPlanNodes {{ id }} readAssets {{ id }} wroteAssets {{ id }} }} }}"""
APPEND = f"""mutation($id: ID!, $e: [JSON!]!) {{
  appendToolCalls(id: $id, entries: $e) {{ {EPISODE} }} }}"""
CLOSE = f"""mutation($id: ID!, $i: CloseEpisodeInput!) {{
  closeEpisode(id: $id, input: $i) {{ {EPISODE} agent {{ name }} }} }}"""
GET = f"query($id: ID!) {{ agentEpisode(id: $id) {{ {EPISODE} }} }}"
LOG_URL = "query($id: ID!) { episodeToolCallLogUrl(id: $id) }"
TREE = """query($id: ID!, $d: Int!) { episodeTree(id: $id, maxDepth: $d) {
  episode { id } root { id } pathToRoot { id } truncated
  descendants { depth hasChildren episode { id parentEpisodeId } } } }"""
LINK_FIELDS = """label role linkedAt changedSince changedAfterLink
  record { __typename ... on PlanNode { id summary } ... on Asset { id title } }"""
REPLAY = f"""query($id: ID!) {{ replayEpisode(id: $id) {{
  episode {{ id status }} agent {{ name }} parent {{ id }} children {{ id }}
  inputRefs retrievalRefs
  reads {{ {LINK_FIELDS} }} writes {{ {LINK_FIELDS} }}
  snapshots {{ snapshot {{ id kbVersionId }} plan {{ id }} viaRecordIds inForceAtStart
    constraints {{ id kind version content }} }}
  log {{ uri sha256 toolCalls url }} }} }}"""
CREATE_NODE = """mutation($i: CreatePlanNodeInput!) { createPlanNode(input: $i) { id } }"""
UPDATE_NODE = """mutation($id: ID!, $i: UpdatePlanNodeInput!) {
  updatePlanNode(id: $id, input: $i) { id updatedAt } }"""
TRANSITION_PLAN = """mutation($id: ID!, $to: PlanStatus!, $c: ConstraintsSnapshotInput) {
  transitionPlan(id: $id, to: $to, constraints: $c) { id status } }"""
INPUTS = {"plan_node_ids": ["n-1"], "brief": "spring reel"}
LATER_KB = {"facts": CONTENT["KNOWLEDGE_BASE"]["facts"][:1]}
RETRIEVED = [{"kind": "kb_fact", "id": "kb-7"}]


def start(caller: Caller, **fields: Any) -> dict[str, Any]:
    given = {"taskClass": "llm.creator", "trigger": "PLANNER_TICK"} | fields
    return dict(caller.data(START, {"i": given})["startEpisode"])


def plan_with_node(caller: Caller, reviewer: Caller, name: str) -> tuple[str, str, str]:
    """An approved plan (the client's current constraint versions frozen) with one blueprint
    node; returns (plan id, node id, snapshot id)."""
    plan = {"name": f"Plan {name}", "createdBy": "AGENT", "targetPlatforms": ["IG"]}
    plan_id = caller.data(CREATE_PLAN, {"input": plan})["createPlan"]["id"]
    node = {"planId": plan_id, "nodeType": "BLUEPRINT_INSTANCE", "title": f"Reel {name}"}
    node_id = caller.data(CREATE_NODE, {"i": node})["createPlanNode"]["id"]
    caller.data(TRANSITION_PLAN, {"id": plan_id, "to": "REVIEWED"})
    reviewer.data(TRANSITION_PLAN, {"id": plan_id, "to": "APPROVED"})
    query = "query($id: ID!) { plan(id: $id) { constraints { id } } }"
    snapshot_id = caller.data(query, {"id": plan_id})["plan"]["constraints"]["id"]
    return plan_id, node_id, snapshot_id


def log_lines(settings: Settings, caller: Caller, uri: str) -> tuple[bytes, list[dict[str, Any]]]:
    data = asyncio.run(store_for(settings).get(principal_of(caller), uri))
    return data, [json.loads(line) for line in data.decode().splitlines()]


def anonymous(body: dict[str, Any], value: str) -> str:
    return str(body["errors"][0]["message"]).replace(value, "X")


def test_episode_lifecycle_writes_a_checksummed_json_lines_log(
    settings: Settings, alice: Caller, neo4j_session: Any
) -> None:
    reviewer = same_client_caller(settings, neo4j_session, alice, Role.REVIEWER)
    create_documents(reviewer)
    _, node_id, _ = plan_with_node(alice, reviewer, "one")
    asset = create_asset(alice, sourceBlueprintInstanceId=node_id)
    episode = start(alice, inputRefs=INPUTS, retrievalRefs=RETRIEVED)
    assert episode["status"] == "RUNNING" and episode["agentName"] == "tester"
    assert episode["inputRefs"] == INPUTS and episode["retrievalRefs"] == RETRIEVED
    assert episode["toolCallLogUri"] is None and episode["closedAt"] is None
    ran = "MATCH (a:Agent {client_id: $c, name: 'tester'})-[:RAN]->(:AgentEpisode {id: $id}) "
    assert (
        neo4j_session.run(ran + "RETURN count(*)", c=alice.client_id, id=episode["id"]).single()[0]
        == 1
    )

    reads = [{"id": node_id, "role": "input"}, {"id": asset["id"], "role": "retrieved"}]
    writes = [{"id": asset["id"], "role": "output"}]
    linked = alice.data(LINK, {"id": episode["id"], "r": reads, "w": writes})
    linked = linked["linkEpisodeRecords"]
    assert linked["readPlanNodes"] == [{"id": node_id}]
    assert linked["readAssets"] == linked["wroteAssets"] == [{"id": asset["id"]}]
    again = alice.data(LINK, {"id": episode["id"], "r": reads, "w": []})
    assert again["linkEpisodeRecords"]["readAssets"] == [{"id": asset["id"]}]
    rels = neo4j_session.run(
        "MATCH (:AgentEpisode {id: $id})-[r]->(n) RETURN type(r) AS t, r.role AS role, "
        "r.created_at IS NOT NULL AS dated, n.id AS n ORDER BY t, role",
        id=episode["id"],
    ).data()
    assert rels == [
        {"t": "READ", "role": "input", "dated": True, "n": node_id},
        {"t": "READ", "role": "retrieved", "dated": True, "n": asset["id"]},
        {"t": "WROTE", "role": "output", "dated": True, "n": asset["id"]},
    ]

    calls = [
        {"tool": "kb.search", "args": {"q": "tankless"}, "result": {"hits": 3}},
        {"tool": "llm.generate", "args": {"prompt": "hook ✓"}, "result": "text"},
        {"tool": "assets.create", "args": {"title": "reel"}, "result": {"id": asset["id"]}},
    ]
    alice.data(APPEND, {"id": episode["id"], "e": calls[:2]})
    alice.data(APPEND, {"id": episode["id"], "e": calls[2:]})
    decision = {"chose": "hook B", "because": "higher predicted retention"}
    closed = alice.data(
        CLOSE,
        {
            "id": episode["id"],
            "i": {
                "status": "SUCCESS",
                "outputSummary": "reel script drafted",
                "costTokensEst": 1234,
                "decisions": [decision],
            },
        },
    )["closeEpisode"]
    assert closed["status"] == "SUCCESS" and closed["closedAt"] is not None
    assert closed["agent"] == {"name": "tester"} and closed["latencyMs"] >= 0
    prefix = f"s3://{settings.s3_bucket}/client/{alice.client_id}/episodes/{episode['id']}/"
    assert closed["toolCallLogUri"].startswith(prefix)

    data, lines = log_lines(settings, alice, closed["toolCallLogUri"])
    assert hashlib.sha256(data).hexdigest() == closed["toolCallLogSha256"]
    assert [line["kind"] for line in lines] == [
        "episode", "input", "read", "read", "tool_call", "tool_call", "tool_call",
        "write", "decision", "output",
    ]  # fmt: skip
    assert lines[0]["episode_id"] == episode["id"] and lines[0]["agent_name"] == "tester"
    assert lines[1] == {"kind": "input", "input_refs": INPUTS, "retrieval_refs": RETRIEVED}
    # Links recorded by one call share their linked_at; the log orders them by id then.
    assert sorted((x["id"], x["label"], x["role"]) for x in lines[2:4]) == sorted(
        [(node_id, "PlanNode", "input"), (asset["id"], "Asset", "retrieved")]
    )
    assert [x["call"] for x in lines[4:7]] == calls and [x["seq"] for x in lines[4:7]] == [1, 2, 3]
    assert (lines[7]["id"], lines[7]["role"]) == (asset["id"], "output")
    assert lines[8]["decision"] == decision
    assert lines[9]["status"] == "success" and lines[9]["output_summary"] == "reel script drafted"
    assert lines[9]["cost_tokens_est"] == 1234 and lines[9]["tool_calls"] == 3

    url = alice.data(LOG_URL, {"id": episode["id"]})["episodeToolCallLogUrl"]
    assert hashlib.sha256(httpx.get(url).content).hexdigest() == closed["toolCallLogSha256"]
    counts = alice.data(
        "query($id: ID!) { agentEpisode(id: $id) { toolCallCount toolCallAppends toolCallBytes } }",
        {"id": episode["id"]},
    )["agentEpisode"]
    calls_bytes = sum(len(line) + 1 for line in data.splitlines()[4:7])
    assert counts == {"toolCallCount": 3, "toolCallAppends": 2, "toolCallBytes": calls_bytes}


def test_closed_episode_is_immutable(settings: Settings, alice: Caller, neo4j_session: Any) -> None:
    parent = start(alice)
    alice.data(APPEND, {"id": parent["id"], "e": [{"tool": "a"}]})
    running = alice.gql(CLOSE, {"id": parent["id"], "i": {"status": "RUNNING"}})
    assert error_code(running) == "INVALID_TRANSITION"
    closed = alice.data(CLOSE, {"id": parent["id"], "i": {"status": "ESCALATED"}})["closeEpisode"]
    before = snapshot(neo4j_session, alice.client_id)
    node = create_asset(alice)
    after_asset = snapshot(neo4j_session, alice.client_id)
    attempts = [
        (APPEND, {"id": parent["id"], "e": [{"tool": "late"}]}),
        (CLOSE, {"id": parent["id"], "i": {"status": "SUCCESS"}}),
        (CLOSE, {"id": parent["id"], "i": {"status": "ESCALATED"}}),
        (LINK, {"id": parent["id"], "r": [{"id": node["id"], "role": "input"}]}),
        (START, {"i": {"taskClass": "t", "trigger": "SCHEDULE", "parentEpisodeId": parent["id"]}}),
    ]
    for query, variables in attempts:
        assert error_code(alice.gql(query, variables)) == "CONFLICT", query
    assert snapshot(neo4j_session, alice.client_id) == after_asset
    assert len(after_asset) == len(before) + 1
    data, _ = log_lines(settings, alice, closed["toolCallLogUri"])
    assert hashlib.sha256(data).hexdigest() == closed["toolCallLogSha256"]
    assert alice.data(GET, {"id": parent["id"]})["agentEpisode"] == {
        k: v for k, v in closed.items() if k != "agent"
    }


def test_concurrent_appends_are_numbered_without_gaps(settings: Settings, alice: Caller) -> None:
    episode = start(alice)

    def append(n: int) -> None:
        alice.data(APPEND, {"id": episode["id"], "e": [{"n": n}, {"n": n, "second": True}]})

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(append, range(8)))
    closed = alice.data(CLOSE, {"id": episode["id"], "i": {"status": "FAILED"}})["closeEpisode"]
    _, lines = log_lines(settings, alice, closed["toolCallLogUri"])
    calls = [line for line in lines if line["kind"] == "tool_call"]
    assert [line["seq"] for line in calls] == list(range(1, 17))
    # The two entries of one append stay together, in order.
    assert all(calls[i]["call"]["n"] == calls[i + 1]["call"]["n"] for i in range(0, 16, 2))
    assert {line["call"]["n"] for line in calls} == set(range(8))


def test_episode_tree_of_three_levels(settings: Settings, api_url: str, neo4j_session: Any) -> None:
    # A reviewer key: the episodes run under several agents (an agent key acts only as itself).
    alice = new_caller(settings, api_url, role=Role.REVIEWER)
    root = start(alice, taskClass="planner.tick")
    child_a = start(alice, parentEpisodeId=root["id"], agentName="creator")
    child_b = start(alice, parentEpisodeId=root["id"], agentName="critic")
    grandchild = start(alice, parentEpisodeId=child_a["id"])
    assert child_a["parentEpisodeId"] == root["id"] and child_a["agentName"] == "creator"
    spawned = neo4j_session.run(
        "MATCH (:AgentEpisode {id: $id})-[:SPAWNED]->(c) RETURN c.id AS id ORDER BY c.created_at",
        id=root["id"],
    ).value()
    assert spawned == [child_a["id"], child_b["id"]]

    counted = alice.gql(TREE, {"id": root["id"], "d": 5}, **{"X-Agentmem-Roundtrips": "1"})
    assert counted["extensions"]["cypherRoundTrips"] == 1
    tree = counted["data"]["episodeTree"]
    assert tree["root"]["id"] == root["id"] and tree["pathToRoot"] == []
    assert [(d["depth"], d["episode"]["id"], d["hasChildren"]) for d in tree["descendants"]] == [
        (1, child_a["id"], True),
        (1, child_b["id"], False),
        (2, grandchild["id"], False),
    ]
    assert tree["descendants"][2]["episode"]["parentEpisodeId"] == child_a["id"]
    assert tree["truncated"] is False
    shallow = alice.data(TREE, {"id": root["id"], "d": 1})["episodeTree"]
    assert [d["episode"]["id"] for d in shallow["descendants"]] == [child_a["id"], child_b["id"]]
    assert shallow["truncated"] is True
    leaf = alice.data(TREE, {"id": grandchild["id"], "d": 5})["episodeTree"]
    assert [e["id"] for e in leaf["pathToRoot"]] == [child_a["id"], root["id"]]
    assert leaf["root"]["id"] == root["id"] and leaf["descendants"] == []
    assert error_code(alice.gql(TREE, {"id": root["id"], "d": 0})) == "VALIDATION"


def test_replay_hydrates_reads_flags_changes_and_finds_snapshots(
    settings: Settings, alice: Caller, neo4j_session: Any
) -> None:
    reviewer = same_client_caller(settings, neo4j_session, alice, Role.REVIEWER)
    documents = create_documents(reviewer)
    kb = documents["KNOWLEDGE_BASE"]
    plan_a, node_a, snapshot_a = plan_with_node(alice, reviewer, "a")
    kb_b = edit(reviewer, kb["id"], LATER_KB)
    plan_b, node_b, snapshot_b = plan_with_node(alice, reviewer, "b")
    asset = create_asset(alice, sourceBlueprintInstanceId=node_b)
    parent = start(alice)
    episode = start(alice, parentEpisodeId=parent["id"], inputRefs=INPUTS, retrievalRefs=RETRIEVED)
    child = start(alice, parentEpisodeId=episode["id"])
    reads = [{"id": node_a, "role": "input"}, {"id": asset["id"], "role": "retrieved"}]
    alice.data(
        LINK, {"id": episode["id"], "r": reads, "w": [{"id": asset["id"], "role": "output"}]}
    )
    alice.data(APPEND, {"id": episode["id"], "e": [{"tool": "x"}]})

    running = alice.data(REPLAY, {"id": episode["id"]})["replayEpisode"]
    assert running["log"] == {"uri": None, "sha256": None, "toolCalls": 1, "url": None}
    assert not any(link["changedSince"] for link in running["reads"])

    alice.data(UPDATE_NODE, {"id": node_a, "i": {"summary": "changed after the read"}})
    closed = alice.data(CLOSE, {"id": episode["id"], "i": {"status": "SUCCESS"}})["closeEpisode"]
    counted = alice.gql(REPLAY, {"id": episode["id"]}, **{"X-Agentmem-Roundtrips": "1"})
    assert counted["extensions"]["cypherRoundTrips"] == 1  # one Cypher query, log URL included
    replay = counted["data"]["replayEpisode"]
    assert replay["episode"] == {"id": episode["id"], "status": "SUCCESS"}
    assert replay["agent"] == {"name": "tester"} and replay["parent"] == {"id": parent["id"]}
    assert replay["children"] == [{"id": child["id"]}]
    assert replay["inputRefs"] == INPUTS and replay["retrievalRefs"] == RETRIEVED
    by_id = {link["record"]["id"]: link for link in replay["reads"]}
    assert by_id[node_a]["label"] == "PlanNode" and by_id[node_a]["role"] == "input"
    assert by_id[node_a]["record"] == {
        "__typename": "PlanNode", "id": node_a, "summary": "changed after the read"
    }  # fmt: skip
    assert by_id[node_a]["changedSince"] and by_id[node_a]["changedAfterLink"]
    assert by_id[asset["id"]]["record"]["__typename"] == "Asset"
    assert not by_id[asset["id"]]["changedSince"]
    assert [(w["record"]["id"], w["role"]) for w in replay["writes"]] == [(asset["id"], "output")]
    snapshots = {s["snapshot"]["id"]: s for s in replay["snapshots"]}
    assert snapshots.keys() == {snapshot_a, snapshot_b}
    assert snapshots[snapshot_a]["plan"]["id"] == plan_a
    assert snapshots[snapshot_a]["viaRecordIds"] == [node_a]
    assert snapshots[snapshot_a]["snapshot"]["kbVersionId"] == kb["currentVersionId"]
    assert snapshots[snapshot_b]["snapshot"]["kbVersionId"] == kb_b["currentVersionId"]
    frozen = {
        snapshot_id: {v["kind"]: v for v in s["constraints"]}
        for snapshot_id, s in snapshots.items()
    }
    assert [v["kind"] for v in snapshots[snapshot_a]["constraints"]] == KIND_ORDER
    assert frozen[snapshot_a]["KNOWLEDGE_BASE"]["id"] == kb["currentVersionId"]
    assert frozen[snapshot_a]["KNOWLEDGE_BASE"]["content"] == CONTENT["KNOWLEDGE_BASE"]
    assert frozen[snapshot_b]["KNOWLEDGE_BASE"]["id"] == kb_b["currentVersionId"]
    assert frozen[snapshot_b]["KNOWLEDGE_BASE"]["content"] == LATER_KB
    assert frozen[snapshot_a]["BRANDKIT"] == frozen[snapshot_b]["BRANDKIT"]
    assert frozen[snapshot_b]["BRANDKIT"]["id"] == documents["BRANDKIT"]["currentVersionId"]
    assert snapshots[snapshot_b]["plan"]["id"] == plan_b
    assert snapshots[snapshot_b]["viaRecordIds"] == [asset["id"]]
    assert all(s["inForceAtStart"] for s in replay["snapshots"])
    log = replay["log"]
    assert (log["uri"], log["sha256"], log["toolCalls"]) == (
        closed["toolCallLogUri"],
        closed["toolCallLogSha256"],
        1,
    )
    assert hashlib.sha256(httpx.get(log["url"]).content).hexdigest() == log["sha256"]


def test_other_client_cannot_link_read_or_presign(
    settings: Settings, alice: Caller, bob: Caller, neo4j_session: Any
) -> None:
    asset = create_asset(alice)
    parent = start(alice)
    theirs = start(alice, parentEpisodeId=parent["id"])
    alice.data(LINK, {"id": theirs["id"], "r": [{"id": asset["id"], "role": "input"}]})
    closed = alice.data(CLOSE, {"id": theirs["id"], "i": {"status": "SUCCESS"}})["closeEpisode"]
    mine = start(bob)
    alice_before = snapshot(neo4j_session, alice.client_id)
    bob_before = snapshot(neo4j_session, bob.client_id)
    uses = [
        (LINK, lambda x: {"id": mine["id"], "r": [{"id": x, "role": "input"}]}),
        (LINK, lambda x: {"id": mine["id"], "w": [{"id": x, "role": "output"}]}),
        (LINK, lambda x: {"id": x, "r": [{"id": mine["id"], "role": "input"}]}),
        (GET, lambda x: {"id": x}),
        (REPLAY, lambda x: {"id": x}),
        (TREE, lambda x: {"id": x, "d": 3}),
        (LOG_URL, lambda x: {"id": x}),
        (APPEND, lambda x: {"id": x, "e": [{"tool": "stolen"}]}),
        (CLOSE, lambda x: {"id": x, "i": {"status": "FAILED"}}),
        (START, lambda x: {"i": {"taskClass": "t", "trigger": "SCHEDULE", "parentEpisodeId": x}}),
    ]
    targets = [asset["id"], asset["id"], theirs["id"]] + [theirs["id"]] * 5 + [parent["id"]] * 2
    for (query, variables), alice_id in zip(uses, targets, strict=True):
        used, absent = bob.gql(query, variables(alice_id)), bob.gql(query, variables(MISSING_ID))
        assert error_code(used) == error_code(absent) == "NOT_FOUND", query
        assert anonymous(used, alice_id) == anonymous(absent, MISSING_ID), query
    # A record that exists but is not a declared target (a plan) is answered the same way.
    plan_id = bob.data(CREATE_PLAN, {"input": {"name": "p", "createdBy": "AGENT"}})["createPlan"]
    not_target = bob.gql(LINK, {"id": mine["id"], "r": [{"id": plan_id["id"], "role": "input"}]})
    assert error_code(not_target) == "NOT_FOUND"
    assert snapshot(neo4j_session, alice.client_id) == alice_before
    assert len(snapshot(neo4j_session, bob.client_id)) == len(bob_before) + 1
    store = store_for(settings)
    for read in (store.get, store.presigned_url):
        with pytest.raises(NotFound):
            asyncio.run(read(principal_of(bob), closed["toolCallLogUri"]))


def test_section_10_episodes_are_recorded_with_inputs_tool_calls_and_outputs(
    settings: Settings, alice: Caller
) -> None:
    """Seed 000, 10: "Agent episodes are recorded with inputs, tool calls, and outputs"."""
    episode = start(alice, inputRefs=INPUTS, retrievalRefs=RETRIEVED, trigger="WEBHOOK_EVENT")
    alice.data(APPEND, {"id": episode["id"], "e": [{"tool": "dm.reply", "args": {"text": "hi"}}]})
    alice.data(CLOSE, {"id": episode["id"], "i": {"status": "SUCCESS", "outputSummary": "replied"}})
    listed = alice.data(
        '{ agentEpisodes(where: {statusIn: ["success"]}) { edges { node { '
        "id trigger inputRefs outputSummary toolCallLogUri toolCallLogSha256 } } } }"
    )["agentEpisodes"]["edges"]
    recorded = {edge["node"]["id"]: edge["node"] for edge in listed}[episode["id"]]
    assert recorded["trigger"] == "WEBHOOK_EVENT" and recorded["inputRefs"] == INPUTS
    assert recorded["outputSummary"] == "replied"
    data, lines = log_lines(settings, alice, recorded["toolCallLogUri"])
    assert hashlib.sha256(data).hexdigest() == recorded["toolCallLogSha256"]
    by_kind = {line["kind"]: line for line in lines}
    assert by_kind["input"]["input_refs"] == INPUTS
    assert by_kind["tool_call"]["call"] == {"tool": "dm.reply", "args": {"text": "hi"}}
    assert by_kind["output"]["output_summary"] == "replied"


def test_agents_roles_and_validation(settings: Settings, api_url: str, neo4j_session: Any) -> None:
    # A reviewer key named tester: it acts as planner and as itself (an agent key may not).
    alice = new_caller(settings, api_url, role=Role.REVIEWER)
    ensure = "mutation($i: EnsureAgentInput) { ensureAgent(input: $i) { id name description } }"
    first = alice.data(ensure, {"i": {"name": "planner", "description": "plans weeks"}})
    second = alice.data(ensure, {"i": {"name": "planner"}})
    assert first["ensureAgent"] == second["ensureAgent"]
    by_name = "query($n: String) { agentByName(name: $n) { id name } }"
    assert alice.data(by_name, {"n": "planner"})["agentByName"]["id"] == first["ensureAgent"]["id"]
    assert error_code(alice.gql(by_name, {})) == error_code(alice.gql(by_name, {"n": "x"}))
    start(alice, agentName="planner")
    start(alice)
    assert alice.data(by_name, {})["agentByName"]["name"] == "tester"
    count = neo4j_session.run(
        "MATCH (a:Agent {client_id: $c, name: 'planner'}) RETURN count(a)", c=alice.client_id
    ).single()[0]
    assert count == 1

    name = neo4j_session.run("MATCH (c:Client {id: $id}) RETURN c.name", id=alice.client_id)
    issued = asyncio.run(
        create_key(settings, client=name.single()[0], role=Role.REVIEWER, agent_name=None)
    )
    reviewer = Caller(http=alice.http, key=issued.secret, client_id=alice.client_id)
    analyst = same_client_caller(settings, neo4j_session, alice, Role.ANALYST)
    fields = {"taskClass": "t", "trigger": "HUMAN_REQUEST"}
    assert error_code(reviewer.gql(START, {"i": fields})) == "VALIDATION"
    assert (
        reviewer.data(START, {"i": fields | {"agentName": "critic"}})["startEpisode"]["agentName"]
        == "critic"
    )
    assert error_code(analyst.gql(START, {"i": fields})) == "FORBIDDEN"
    before = snapshot(neo4j_session, alice.client_id)
    episode = start(alice)
    after_start = snapshot(neo4j_session, alice.client_id)
    asset = create_asset(alice)
    after_asset = snapshot(neo4j_session, alice.client_id)
    bad = [
        (START, {"i": fields | {"agentName": "bad name!"}}, "VALIDATION"),
        (START, {"i": fields | {"taskClass": " "}}, "VALIDATION"),
        (START, {"i": fields | {"inputRefs": "text"}}, "VALIDATION"),
        (START, {"i": fields | {"parentEpisodeId": MISSING_ID}}, "NOT_FOUND"),
        (LINK, {"id": episode["id"], "r": [], "w": []}, "VALIDATION"),
        (LINK, {"id": episode["id"], "r": [{"id": asset["id"], "role": " "}]}, "VALIDATION"),
        (
            LINK,
            {
                "id": episode["id"],
                "r": [{"id": asset["id"], "role": "in"}, {"id": MISSING_ID, "role": "in"}],
            },
            "NOT_FOUND",
        ),
        (APPEND, {"id": episode["id"], "e": []}, "VALIDATION"),
        (APPEND, {"id": episode["id"], "e": ["not an object"]}, "VALIDATION"),
        (CLOSE, {"id": episode["id"], "i": {"status": "SUCCESS", "latencyMs": -1}}, "VALIDATION"),
        (CLOSE, {"id": MISSING_ID, "i": {"status": "SUCCESS"}}, "NOT_FOUND"),
    ]
    for query, variables, code in bad:
        assert error_code(alice.gql(query, variables)) == code, (query, variables)
    assert snapshot(neo4j_session, alice.client_id) == after_asset
    assert len(after_start) == len(before) + 1
