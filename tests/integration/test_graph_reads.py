"""Nested selections in one Cypher round trip, lists with filters, lineage, and isolation."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.conftest import Caller
from tests.integration.seed_graph import seed_graph

NESTED = """
query($id: ID!) {
  plan(id: $id) {
    name status
    constraints { kbVersionId }
    nodes(where: {nodeType: "blueprint_instance"}) {
      title nodeType
      dependsOn { title }
      assets {
        title
        variants(where: {statusIn: ["published"]}) { platform approvals { status reviewerUserId } }
        allVariants: variants(first: 1, orderBy: CREATED_AT_ASC) { platform }
      }
    }
    firstTwo: nodes(first: 2, orderBy: CREATED_AT_ASC) { title }
  }
}
"""


@pytest.fixture
def graph(alice: Caller, neo4j_session: Any) -> dict[str, str]:
    return seed_graph(neo4j_session, alice.client_id)


def counted(caller: Caller, query: str, variables: dict[str, Any]) -> tuple[Any, int]:
    body = caller.gql(query, variables, **{"X-Agentmem-Roundtrips": "1"})
    assert not body.get("errors"), body["errors"]
    return body["data"], body["extensions"]["cypherRoundTrips"]


def test_nested_selection_is_one_round_trip(alice: Caller, graph: dict[str, str]) -> None:
    data, trips = counted(alice, NESTED, {"id": graph["plan"]})
    assert trips == 1
    plan = data["plan"]
    assert plan["constraints"] == {"kbVersionId": "kb-3"}
    assert [n["title"] for n in plan["nodes"]] == ["Blueprint"]
    blueprint = plan["nodes"][0]
    assert blueprint["dependsOn"] == [{"title": "Campaign"}]
    asset = blueprint["assets"][0]
    assert asset["variants"] == [
        {"platform": "IG", "approvals": [{"status": "APPROVED", "reviewerUserId": "rev-1"}]}
    ]
    assert asset["allVariants"] == [{"platform": "IG"}]
    assert [n["title"] for n in plan["firstTwo"]] == ["Objective", "Campaign"]


def test_lists_filter_and_paginate_in_one_round_trip(alice: Caller, graph: dict[str, str]) -> None:
    query = """query($w: RecordWhere) { planNodes(where: $w, first: 3) {
        totalCount pageInfo { hasNextPage endCursor } nodes { title plan { name } } } }"""
    data, trips = counted(alice, query, {"w": {"planId": graph["plan"]}})
    assert trips == 1
    nodes = data["planNodes"]
    assert nodes["totalCount"] == 4 and nodes["pageInfo"]["hasNextPage"]
    assert [n["title"] for n in nodes["nodes"]] == ["Post", "Blueprint", "Campaign"]
    assert {n["plan"]["name"] for n in nodes["nodes"]} == {"Feb Week 1"}
    rest = alice.data(
        "query($a: String) { planNodes(first: 3, after: $a) { nodes { title } } }",
        {"a": nodes["pageInfo"]["endCursor"]},
    )
    assert [n["title"] for n in rest["planNodes"]["nodes"]] == ["Objective"]
    failed = alice.data('{ assetVariants(where: {statusIn: ["failed"]}) { totalCount } }')
    assert failed["assetVariants"]["totalCount"] == 1
    bad = alice.gql('{ assetVariants(where: {statusIn: ["sideways"]}) { totalCount } }')
    assert bad["errors"][0]["extensions"]["code"] == "VALIDATION"
    wrong_field = alice.gql('{ plans(where: {planId: "x"}) { totalCount } }')
    assert wrong_field["errors"][0]["extensions"]["code"] == "VALIDATION"


def test_upstream_of_variant_and_package(alice: Caller, graph: dict[str, str]) -> None:
    query = """query($id: ID!) { upstream(id: $id) { startLabel variants { id } assets { id }
        blueprints { id } ancestors { title } plans { id } snapshots { kbVersionId }
        prompts { id } approvals { reviewerUserId } } }"""
    for start in ("variant", "package"):
        data, trips = counted(alice, query, {"id": graph[start]})
        assert trips == 1
        up = data["upstream"]
        assert [v["id"] for v in up["variants"]] == [graph["variant"]]
        assert [a["id"] for a in up["assets"]] == [graph["asset"]]
        assert [b["id"] for b in up["blueprints"]] == [graph["blueprint"]]
        assert sorted(x["title"] for x in up["ancestors"]) == ["Campaign", "Objective"]
        assert [p["id"] for p in up["plans"]] == [graph["plan"]]
        assert up["snapshots"] == [{"kbVersionId": "kb-3"}]
        assert [p["id"] for p in up["prompts"]] == [graph["prompt"]]
        assert up["approvals"] == [{"reviewerUserId": "rev-1"}]


def test_downstream_and_trace(alice: Caller, graph: dict[str, str]) -> None:
    down = """query($id: ID!) { downstream(id: $id) { nodes { title } variants { id }
        packages { id } runs { id } evidence { kind } } }"""
    data, trips = counted(alice, down, {"id": graph["campaign"]})
    assert trips == 1
    assert sorted(n["title"] for n in data["downstream"]["nodes"]) == [
        "Blueprint",
        "Campaign",
        "Post",
    ]
    assert len(data["downstream"]["variants"]) == 2
    assert [r["id"] for r in data["downstream"]["runs"]] == [graph["run"]]
    assert data["downstream"]["evidence"] == [{"kind": "SCREENSHOT"}]
    trace = """query($id: ID!) { trace(variantId: $id) { variant { id } asset { title }
        blueprint { title } ancestors { title } plan { name } snapshot { policiesVersionId }
        constraints { id kind content } prompts { model } approvals { status } packages { id }
        runs { run { status } evidence { uri } } } }"""
    data, trips = counted(alice, trace, {"id": graph["variant"]})
    assert trips == 1
    t = data["trace"]
    assert t["blueprint"] == {"title": "Blueprint"} and t["plan"] == {"name": "Feb Week 1"}
    assert t["snapshot"] == {"policiesVersionId": "po-2"}
    frozen = {"id": graph["brandkit"], "kind": "BRANDKIT", "content": {"name": "Acme"}}
    assert t["constraints"] == [frozen]  # in the same one query
    assert t["runs"] == [{"run": {"status": "SUCCEEDED"}, "evidence": [{"uri": "s3://b/e.png"}]}]


def test_other_client_sees_nothing(bob: Caller, graph: dict[str, str]) -> None:
    missing = "00000000-0000-4000-8000-000000000000"
    for query, key in [
        ("query($id: ID!) { plan(id: $id) { id } }", "plan"),
        ("query($id: ID!) { assetVariant(id: $id) { id } }", "variant"),
        ("query($id: ID!) { upstream(id: $id) { startId } }", "variant"),
        ("query($id: ID!) { downstream(id: $id) { startId } }", "plan"),
        ("query($id: ID!) { trace(variantId: $id) { variant { id } } }", "variant"),
    ]:
        theirs, nothing = bob.gql(query, {"id": graph[key]}), bob.gql(query, {"id": missing})
        assert theirs["errors"][0]["extensions"]["code"] == "NOT_FOUND"
        assert theirs["errors"][0]["message"].replace(graph[key], "X") == nothing["errors"][0][
            "message"
        ].replace(missing, "X")
    listed = bob.data("{ planNodes { totalCount } assetVariants { totalCount } }")
    assert listed == {"planNodes": {"totalCount": 0}, "assetVariants": {"totalCount": 0}}


def test_mutation_result_can_select_relationships(alice: Caller, graph: dict[str, str]) -> None:
    create = """mutation($i: CreatePlanNodeInput!) { createPlanNode(input: $i) {
        title plan { name constraints { kbVersionId } } } }"""
    variables = {"i": {"planId": graph["plan"], "nodeType": "POST_INTENT", "title": "Follow-up"}}
    data, trips = counted(alice, create, variables)
    assert data["createPlanNode"] == {
        "title": "Follow-up",
        "plan": {"name": "Feb Week 1", "constraints": {"kbVersionId": "kb-3"}},
    }
    assert trips >= 2  # the write, then one compiled read of the selection
    flat, flat_trips = counted(
        alice, create.replace("plan { name constraints { kbVersionId } }", "status"), variables
    )
    assert flat["createPlanNode"] == {"title": "Follow-up", "status": "PENDING"}
    assert flat_trips == trips - 1
