"""The plan graph over real HTTP and Neo4j: nodes, typed acyclic edges, bulk graphs, approval."""

from __future__ import annotations

import asyncio
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from app.cli.admin import create_key
from app.domain.kernel.errors import NotFound
from app.domain.kernel.principal import Principal
from app.domain.plans import nodes as plan_nodes
from app.model.enums import Role
from app.runtime import connected
from app.settings import Settings
from tests.integration.asset_helpers import own_state
from tests.integration.conftest import Caller
from tests.integration.constraint_helpers import CONTENT, create_documents, edit

NODE_FIELDS = (
    "id planId nodeType title inputs summary status qualityScore costEstimate createdAt updatedAt"
)
EDGE_FIELDS = "edgeId edgeType fromNodeId toNodeId planId createdAt"
CREATE_PLAN = "mutation($input: CreatePlanInput!) { createPlan(input: $input) { id status } }"
CREATE_NODE = (
    "mutation($input: CreatePlanNodeInput!) "
    f"{{ createPlanNode(input: $input) {{ {NODE_FIELDS} }} }}"
)
UPDATE_NODE = (
    "mutation($id: ID!, $input: UpdatePlanNodeInput!) "
    f"{{ updatePlanNode(id: $id, input: $input) {{ {NODE_FIELDS} }} }}"
)
TRANSITION_NODE = (
    "mutation($id: ID!, $to: PlanNodeStatus!) "
    f"{{ transitionPlanNode(id: $id, to: $to) {{ {NODE_FIELDS} }} }}"
)
ADD_EDGE = (
    f"mutation($input: AddPlanEdgeInput!) {{ addPlanEdge(input: $input) {{ {EDGE_FIELDS} }} }}"
)
REMOVE_EDGE = f"mutation($edgeId: ID!) {{ removePlanEdge(edgeId: $edgeId) {{ {EDGE_FIELDS} }} }}"
CREATE_GRAPH = f"""
mutation($input: CreatePlanGraphInput!) {{
  createPlanGraph(input: $input) {{
    plan {{ id name status }} nodes {{ {NODE_FIELDS} }} edges {{ {EDGE_FIELDS} }}
    keys {{ key nodeId }}
  }}
}}
"""
TRANSITION_PLAN = """
mutation($id: ID!, $to: PlanStatus!, $constraints: ConstraintsSnapshotInput) {
  transitionPlan(id: $id, to: $to, constraints: $constraints) { id status constraintsRef }
}
"""
UPDATE_PLAN = (
    "mutation($id: ID!, $input: UpdatePlanInput!) { updatePlan(id: $id, input: $input) { id } }"
)
PLAN = {"name": "Feb Week 1", "createdBy": "AGENT", "targetPlatforms": ["IG"]}
# Seed 000, section 9.1 (node_id, plan_id and client_id are given by the service).
SEED_NODE = {
    "nodeType": "BLUEPRINT_INSTANCE",
    "title": "IG Reel: Hook → Value → CTA",
    "inputs": {
        "blueprint": "short_reel_hook_value_cta",
        "cta_style": "comment_keyword",
        "offer": "Free Estimate",
        "platform": "instagram",
    },
    "summary": (
        "Reel targeting homeowners; hook about water pressure; CTA comment 'PRESSURE' for DM."
    ),
    "status": "READY",
    "qualityScore": 86,
}
# Approval freezes the current version of each constraint document; the notes go with them.
CONSTRAINTS = {"notes": "Feb launch rules"}
MISSING_ID = "00000000-0000-4000-8000-000000000000"


def error_code(body: dict[str, Any]) -> str:
    assert body.get("errors"), f"expected an error, got {body}"
    return str(body["errors"][0]["extensions"]["code"])


def new_plan(caller: Caller) -> str:
    return str(caller.data(CREATE_PLAN, {"input": PLAN})["createPlan"]["id"])


def new_node(caller: Caller, plan_id: str, title: str = "node", **fields: Any) -> dict[str, Any]:
    node = {"planId": plan_id, "nodeType": "CAMPAIGN", "title": title} | fields
    return dict(caller.data(CREATE_NODE, {"input": node})["createPlanNode"])


def add_edge(caller: Caller, source: str, target: str, edge_type: str = "DEPENDS_ON") -> Any:
    edge = {"fromNodeId": source, "toNodeId": target, "edgeType": edge_type}
    return caller.gql(ADD_EDGE, {"input": edge})


def edge_count(session: Any, plan_id: str) -> int:
    query = "MATCH (:PlanNode {plan_id: $plan})-[r]->(:PlanNode) RETURN count(r) AS n"
    return int(session.run(query, plan=plan_id).single()["n"])


def client_counts(session: Any, client_id: str) -> tuple[int, int]:
    query = """
    RETURN COUNT { MATCH (p:Plan {client_id: $c}) } AS plans,
           COUNT { MATCH (n:PlanNode {client_id: $c}) } AS nodes
    """
    row = session.run(query, c=client_id).single()
    return int(row["plans"]), int(row["nodes"])


def read_node(settings: Settings, client_id: str, node_id: str) -> dict[str, Any]:
    """The domain's get, as the lead's read query will call it."""

    async def read() -> dict[str, Any]:
        async with connected(settings) as graph:
            principal = Principal(client_id=client_id, role=Role.AGENT, key_id="test")
            return await plan_nodes.get_plan_node(graph, principal=principal, node_id=node_id)

    # The embedding worker may index the node between two reads; that is not the node's state.
    return own_state([], asyncio.run(read()))[1]


def colleague(settings: Settings, api_url: str, session: Any, of: Caller, role: Role) -> Caller:
    """Another key of the same client, with another role."""
    name = session.run("MATCH (c:Client {id: $id}) RETURN c.name AS name", id=of.client_id)
    issued = asyncio.run(
        create_key(settings, client=name.single()["name"], role=role, agent_name="colleague")
    )
    return Caller(httpx.Client(base_url=api_url, timeout=30), issued.secret, of.client_id)


def test_seed_plan_node_round_trips(alice: Caller, settings: Settings, neo4j_session: Any) -> None:
    plan_id = new_plan(alice)
    created = alice.data(CREATE_NODE, {"input": SEED_NODE | {"planId": plan_id}})["createPlanNode"]
    assert {key: created[key] for key in SEED_NODE} == SEED_NODE
    assert created["planId"] == plan_id and created["costEstimate"] is None
    stored = read_node(settings, alice.client_id, created["id"])
    assert stored["client_id"] == alice.client_id and stored["plan_id"] == plan_id
    assert stored["inputs"] == SEED_NODE["inputs"] and stored["status"] == "ready"
    assert (stored["node_type"], stored["quality_score"]) == ("blueprint_instance", 86)
    row = neo4j_session.run(
        "MATCH (:Plan {id: $plan})-[:HAS_NODE]->(n:PlanNode {id: $id}) RETURN n.inputs AS inputs",
        plan=plan_id,
        id=created["id"],
    ).single()
    assert isinstance(row["inputs"], str) and "short_reel_hook_value_cta" in row["inputs"]
    updated = alice.data(UPDATE_NODE, {"id": created["id"], "input": {"costEstimate": 12.5}})
    assert updated["updatePlanNode"] == created | {
        "costEstimate": 12.5,
        "updatedAt": updated["updatePlanNode"]["updatedAt"],
    }


def test_node_starts_pending_and_bad_fields_write_nothing(
    alice: Caller, neo4j_session: Any
) -> None:
    plan_id = new_plan(alice)
    assert new_node(alice, plan_id)["status"] == "PENDING"
    for bad in [
        {"title": ""},
        {"title": "x" * 201},
        {"summary": "s" * 2001},
        {"qualityScore": 101},
        {"costEstimate": -1},
        {"inputs": [1, 2]},
        {"status": "COMPLETE"},
    ]:
        body = alice.gql(
            CREATE_NODE,
            {"input": {"planId": plan_id, "nodeType": "CAMPAIGN"} | {"title": "ok"} | bad},
        )
        assert error_code(body) == "VALIDATION", bad
    body = alice.gql(CREATE_NODE, {"input": {"planId": plan_id, "nodeType": "ESSAY", "title": "x"}})
    assert error_code(body) == "GRAPHQL_VALIDATION"
    assert client_counts(neo4j_session, alice.client_id) == (1, 1)


def test_status_machine_accepts_and_rejects(alice: Caller, settings: Settings) -> None:
    node = new_node(alice, new_plan(alice))
    for target in ["READY", "BLOCKED", "FAILED", "PENDING", "READY", "COMPLETE"]:
        moved = alice.data(TRANSITION_NODE, {"id": node["id"], "to": target})
        assert moved["transitionPlanNode"]["status"] == target
    before = read_node(settings, alice.client_id, node["id"])
    for target in ["PENDING", "READY", "FAILED", "BLOCKED", "COMPLETE"]:
        body = alice.gql(TRANSITION_NODE, {"id": node["id"], "to": target})
        assert error_code(body) == "INVALID_TRANSITION"
        assert "allowed next statuses: none" in body["errors"][0]["message"]
    fresh = new_node(alice, new_plan(alice))
    body = alice.gql(TRANSITION_NODE, {"id": fresh["id"], "to": "COMPLETE"})
    assert error_code(body) == "INVALID_TRANSITION"
    assert read_node(settings, alice.client_id, node["id"]) == before
    assert read_node(settings, alice.client_id, fresh["id"])["status"] == "pending"
    bad = alice.gql(UPDATE_NODE, {"id": fresh["id"], "input": {"qualityScore": 1000}})
    assert error_code(bad) == "VALIDATION"
    assert (
        read_node(settings, alice.client_id, fresh["id"])["updated_at"].isoformat()
        == (fresh["updatedAt"])
    )


def test_edge_that_closes_a_cycle_is_rejected(alice: Caller, neo4j_session: Any) -> None:
    plan_id = new_plan(alice)
    a, b, c = (new_node(alice, plan_id, title)["id"] for title in "ABC")
    first = add_edge(alice, a, b)["data"]["addPlanEdge"]
    assert first["edgeType"] == "DEPENDS_ON" and (first["fromNodeId"], first["toNodeId"]) == (a, b)
    assert "errors" not in add_edge(alice, b, c, "PRODUCES")
    for edge_type in ["DEPENDS_ON", "REFINES", "SCHEDULED_FOR"]:
        body = add_edge(alice, c, a, edge_type)
        assert error_code(body) == "CYCLE", edge_type
        assert body["errors"][0]["extensions"]["cycle"] == [a, b, c]
    assert error_code(add_edge(alice, b, a, "REQUIRES_APPROVAL")) == "CYCLE"
    assert error_code(add_edge(alice, a, a)) == "VALIDATION"
    assert edge_count(neo4j_session, plan_id) == 2
    again = add_edge(alice, a, b)["data"]["addPlanEdge"]
    assert again == first and edge_count(neo4j_session, plan_id) == 2
    assert "errors" not in add_edge(alice, a, b, "PRODUCES")
    assert "errors" not in add_edge(alice, a, c, "REFINES")
    assert edge_count(neo4j_session, plan_id) == 4
    removed = alice.data(REMOVE_EDGE, {"edgeId": first["edgeId"]})["removePlanEdge"]
    assert removed == first
    assert error_code(alice.gql(REMOVE_EDGE, {"edgeId": first["edgeId"]})) == "NOT_FOUND"
    assert error_code(add_edge(alice, c, a)) == "CYCLE"  # a -PRODUCES-> b -> c still holds
    row = neo4j_session.run(
        "MATCH (:PlanNode {id: $a})-[r:PRODUCES]->(:PlanNode {id: $b}) RETURN r {.*} AS r",
        a=a,
        b=b,
    ).single()
    assert set(row["r"]) == {"edge_id", "plan_id", "client_id", "created_at"}
    assert row["r"]["client_id"] == alice.client_id and row["r"]["plan_id"] == plan_id


def test_concurrent_opposite_edges_cannot_both_land(alice: Caller, neo4j_session: Any) -> None:
    plan_id = new_plan(alice)
    with ThreadPoolExecutor(max_workers=2) as pool:
        for _ in range(5):
            a, b = new_node(alice, plan_id)["id"], new_node(alice, plan_id)["id"]
            bodies = list(pool.map(lambda ends: add_edge(alice, *ends), [(a, b), (b, a)]))
            codes = sorted(error_code(body) if body.get("errors") else "OK" for body in bodies)
            assert codes == ["CYCLE", "OK"]
    assert edge_count(neo4j_session, plan_id) == 5


def test_cross_plan_edges_are_rejected(alice: Caller, neo4j_session: Any) -> None:
    first, second = new_plan(alice), new_plan(alice)
    a, b = new_node(alice, first)["id"], new_node(alice, second)["id"]
    body = add_edge(alice, a, b)
    assert error_code(body) == "VALIDATION" and "same plan" in body["errors"][0]["message"]
    assert edge_count(neo4j_session, first) == edge_count(neo4j_session, second) == 0


def test_bulk_graph_is_all_or_nothing(alice: Caller, neo4j_session: Any) -> None:
    nodes = [
        {"key": "objective", "nodeType": "OBJECTIVE", "title": "Leads"},
        {"key": "reel", "nodeType": "BLUEPRINT_INSTANCE", "title": "Reel", "inputs": {"a": 1}},
        {"key": "publish", "nodeType": "PUBLISH_JOB", "title": "Post it", "status": "BLOCKED"},
    ]
    edges = [
        {"fromKey": "reel", "toKey": "objective", "edgeType": "DEPENDS_ON"},
        {"fromKey": "reel", "toKey": "publish", "edgeType": "SCHEDULED_FOR"},
    ]
    closing = {"fromKey": "publish", "toKey": "reel", "edgeType": "PRODUCES"}
    failing = [
        ({"nodes": nodes, "edges": [*edges, closing]}, "CYCLE"),
        ({"nodes": [*nodes[:2], nodes[2] | {"qualityScore": -1}], "edges": edges}, "VALIDATION"),
        ({"nodes": nodes, "edges": [*edges, {**closing, "toKey": "nope"}]}, "VALIDATION"),
        ({"nodes": [*nodes, nodes[0]], "edges": edges}, "VALIDATION"),
        ({"nodes": nodes, "edges": edges, "plan": PLAN | {"name": " "}}, "VALIDATION"),
    ]
    for graph, code in failing:
        body = alice.gql(CREATE_GRAPH, {"input": {"plan": PLAN} | graph})
        assert error_code(body) == code, graph
        assert client_counts(neo4j_session, alice.client_id) == (0, 0)
    made = alice.data(CREATE_GRAPH, {"input": {"plan": PLAN, "nodes": nodes, "edges": edges}})
    result = made["createPlanGraph"]
    keys = {item["key"]: item["nodeId"] for item in result["keys"]}
    assert [n["id"] for n in result["nodes"]] == [keys["objective"], keys["reel"], keys["publish"]]
    assert [n["status"] for n in result["nodes"]] == ["PENDING", "PENDING", "BLOCKED"]
    assert result["nodes"][1]["inputs"] == {"a": 1}
    assert [(e["fromNodeId"], e["toNodeId"], e["edgeType"]) for e in result["edges"]] == [
        (keys["reel"], keys["objective"], "DEPENDS_ON"),
        (keys["reel"], keys["publish"], "SCHEDULED_FOR"),
    ]
    assert client_counts(neo4j_session, alice.client_id) == (1, 3)
    assert edge_count(neo4j_session, result["plan"]["id"]) == 2
    later = add_edge(alice, keys["publish"], keys["reel"], "PRODUCES")
    assert error_code(later) == "CYCLE"


def test_approval_freezes_exactly_one_snapshot(
    alice: Caller, settings: Settings, api_url: str, neo4j_session: Any
) -> None:
    reviewer = colleague(settings, api_url, neo4j_session, alice, Role.REVIEWER)
    plan_id = new_plan(alice)
    alice.data(TRANSITION_PLAN, {"id": plan_id, "to": "REVIEWED"})
    approve = {"id": plan_id, "to": "APPROVED", "constraints": CONSTRAINTS}
    assert error_code(alice.gql(TRANSITION_PLAN, approve)) == "FORBIDDEN"
    missing = reviewer.gql(TRANSITION_PLAN, approve)
    assert error_code(missing) == "VALIDATION"
    assert missing["errors"][0]["extensions"]["field"] == "constraints"
    assert "no brandkit document" in missing["errors"][0]["message"]
    assert_unapproved(neo4j_session, plan_id)
    documents = create_documents(reviewer)
    wrong = alice.gql(TRANSITION_PLAN, {"id": plan_id, "to": "DRAFT", "constraints": CONSTRAINTS})
    assert error_code(wrong) == "VALIDATION"
    blank = reviewer.gql(
        TRANSITION_PLAN, approve | {"constraints": CONSTRAINTS | {"kbVersionId": ""}}
    )
    assert error_code(blank) == "VALIDATION"
    assert_unapproved(neo4j_session, plan_id)
    approved = reviewer.data(TRANSITION_PLAN, approve)["transitionPlan"]
    row = neo4j_session.run(SNAPSHOTS, id=plan_id).single()
    assert len(row["snapshots"]) == 1 and row["status"] == "approved"
    snapshot = row["snapshots"][0]
    assert approved["constraintsRef"] == row["ref"] == snapshot["id"]
    assert snapshot["client_id"] == alice.client_id and snapshot["notes"] == "Feb launch rules"
    current = {kind: document["currentVersionId"] for kind, document in documents.items()}
    assert snapshot["kb_version_id"] == current["KNOWLEDGE_BASE"]
    assert sorted(row["frozen"]) == sorted(current.values())
    assert error_code(reviewer.gql(TRANSITION_PLAN, approve)) == "INVALID_TRANSITION"
    frozen = alice.gql(UPDATE_PLAN, {"id": plan_id, "input": {"constraintsRef": "other"}})
    assert error_code(frozen) == "VALIDATION"
    alice.data(TRANSITION_PLAN, {"id": plan_id, "to": "EXECUTING"})
    row = neo4j_session.run(SNAPSHOTS, id=plan_id).single()
    assert len(row["snapshots"]) == 1 and row["ref"] == snapshot["id"]
    admin = colleague(settings, api_url, neo4j_session, alice, Role.ADMIN)
    other = new_plan(alice)
    alice.data(TRANSITION_PLAN, {"id": other, "to": "REVIEWED"})
    assert admin.data(TRANSITION_PLAN, approve | {"id": other})["transitionPlan"]["constraintsRef"]


def test_approval_freezes_only_the_clients_versions_of_the_right_kind(
    alice: Caller, bob: Caller, settings: Settings, api_url: str, neo4j_session: Any
) -> None:
    reviewer = colleague(settings, api_url, neo4j_session, alice, Role.REVIEWER)
    mine = create_documents(reviewer)
    theirs = create_documents(colleague(settings, api_url, neo4j_session, bob, Role.REVIEWER))
    plan_id = new_plan(alice)
    alice.data(TRANSITION_PLAN, {"id": plan_id, "to": "REVIEWED"})
    refused = {
        "bob's knowledge base": theirs["KNOWLEDGE_BASE"]["currentVersionId"],
        "a brandkit version": mine["BRANDKIT"]["currentVersionId"],
        "no version at all": MISSING_ID,
    }
    for why, version_id in refused.items():
        named = {"id": plan_id, "to": "APPROVED", "constraints": {"kbVersionId": version_id}}
        body = reviewer.gql(TRANSITION_PLAN, named)
        assert error_code(body) == "VALIDATION", why
        assert body["errors"][0]["extensions"]["field"] == "kb_version_id", why
        assert version_id in body["errors"][0]["message"], why
        assert_unapproved(neo4j_session, plan_id)
    first_kb = mine["KNOWLEDGE_BASE"]
    edit(reviewer, first_kb["id"], {"facts": CONTENT["KNOWLEDGE_BASE"]["facts"][:1]})
    named = {"kbVersionId": first_kb["currentVersionId"]}
    reviewer.data(TRANSITION_PLAN, {"id": plan_id, "to": "APPROVED", "constraints": named})
    row = neo4j_session.run(SNAPSHOTS, id=plan_id).single()
    expected = {kind: document["currentVersionId"] for kind, document in mine.items()}
    assert sorted(row["frozen"]) == sorted(expected.values())  # version 1 of the KB, as named
    assert row["snapshots"][0]["kb_version_id"] == first_kb["currentVersionId"]


SNAPSHOTS = """
MATCH (p:Plan {id: $id})-[:CONSTRAINED_BY]->(s:ConstraintsSnapshot)
RETURN p.status AS status, p.constraints_ref AS ref, collect(s {.*}) AS snapshots,
       COLLECT { MATCH (s)-[:FREEZES]->(v:ConstraintVersion) RETURN v.id } AS frozen
"""


def assert_unapproved(session: Any, plan_id: str) -> None:
    """A refused approval wrote nothing: the plan is still REVIEWED, with no snapshot."""
    query = """
    MATCH (p:Plan {id: $id})
    RETURN p.status AS status, p.constraints_ref AS ref,
           COUNT { (p)-[:CONSTRAINED_BY]->() } AS snapshots,
           COUNT { MATCH (s:ConstraintsSnapshot {client_id: p.client_id}) } AS client_snapshots
    """
    row = session.run(query, id=plan_id).single()
    assert (row["status"], row["ref"], row["snapshots"], row["client_snapshots"]) == (
        "reviewed",
        None,
        0,
        0,
    )


def test_other_client_gets_not_found_for_everything(
    alice: Caller, bob: Caller, settings: Settings, neo4j_session: Any
) -> None:
    plan_id = new_plan(alice)
    a, b = new_node(alice, plan_id)["id"], new_node(alice, plan_id)["id"]
    edge = add_edge(alice, a, b)["data"]["addPlanEdge"]
    own = new_node(bob, new_plan(bob))["id"]
    before = read_node(settings, alice.client_id, a)

    def attempts(target: str) -> list[tuple[str, dict[str, Any]]]:
        ends = {"fromNodeId": target, "edgeType": "REFINES"}
        return [
            (UPDATE_NODE, {"id": target, "input": {"title": "stolen"}}),
            (TRANSITION_NODE, {"id": target, "to": "READY"}),
            (ADD_EDGE, {"input": ends | {"toNodeId": b}}),
            (ADD_EDGE, {"input": ends | {"fromNodeId": own, "toNodeId": target}}),
            (REMOVE_EDGE, {"edgeId": target}),
            (CREATE_NODE, {"input": {"planId": target, "nodeType": "CAMPAIGN", "title": "x"}}),
        ]

    for target in [a, edge["edgeId"], plan_id]:
        for (query, theirs), (_, nothing) in zip(
            attempts(target), attempts(MISSING_ID), strict=True
        ):
            got, missing = bob.gql(query, theirs), bob.gql(query, nothing)
            assert error_code(got) == error_code(missing) == "NOT_FOUND", (query, target)
            assert got["errors"][0]["message"].replace(target, "X") == missing["errors"][0][
                "message"
            ].replace(MISSING_ID, "X")
    theirs_read, missing_read = (
        _read_error(settings, bob, a),
        _read_error(settings, bob, MISSING_ID),
    )
    assert theirs_read.replace(a, "X") == missing_read.replace(MISSING_ID, "X")
    assert read_node(settings, alice.client_id, a) == before
    assert edge_count(neo4j_session, plan_id) == 1
    assert client_counts(neo4j_session, bob.client_id) == (1, 1)


def test_analyst_cannot_write_the_plan_graph(
    alice: Caller, settings: Settings, api_url: str, neo4j_session: Any
) -> None:
    analyst = colleague(settings, api_url, neo4j_session, alice, Role.ANALYST)
    plan_id = new_plan(alice)
    body = analyst.gql(
        CREATE_NODE, {"input": {"planId": plan_id, "nodeType": "CAMPAIGN", "title": "x"}}
    )
    assert error_code(body) == "FORBIDDEN"
    graph = {"plan": PLAN, "nodes": [], "edges": []}
    assert error_code(analyst.gql(CREATE_GRAPH, {"input": graph})) == "FORBIDDEN"
    assert client_counts(neo4j_session, alice.client_id) == (1, 0)


def _read_error(settings: Settings, caller: Caller, node_id: str) -> str:
    try:
        read_node(settings, caller.client_id, node_id)
    except NotFound as error:
        return error.message
    raise AssertionError(f"{node_id} was readable by another client")


def test_unknown_ids_are_not_found_and_malformed_ids_are_validation(alice: Caller) -> None:
    assert error_code(alice.gql(TRANSITION_NODE, {"id": str(uuid.uuid4()), "to": "READY"})) == (
        "NOT_FOUND"
    )
    assert error_code(alice.gql(TRANSITION_NODE, {"id": "nope", "to": "READY"})) == "VALIDATION"
    assert error_code(add_edge(alice, MISSING_ID, "nope")) == "VALIDATION"
