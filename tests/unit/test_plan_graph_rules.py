"""Plan graph rules without servers: node status machine, fields, bulk validation, approval."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.domain.kernel.errors import CycleDetected, Forbidden, InvalidTransition, ValidationFailed
from app.domain.kernel.principal import Principal
from app.domain.plans.approval import check_approval, check_ref_editable
from app.domain.plans.edges import ANY_PLAN_EDGE, CHECK_EDGE, relationship_type
from app.domain.plans.graph_rules import check_graph, topological_order
from app.domain.plans.node_rules import (
    NODE_TRANSITIONS,
    check_new_node,
    check_node_changes,
    check_node_transition,
    decode_inputs,
)
from app.model.enums import PlanEdgeType, PlanNodeStatus, PlanStatus, Role

S = PlanNodeStatus
ALLOWED = {
    (S.PENDING, S.READY),
    (S.PENDING, S.BLOCKED),
    (S.PENDING, S.FAILED),
    (S.READY, S.COMPLETE),
    (S.READY, S.BLOCKED),
    (S.READY, S.FAILED),
    (S.READY, S.PENDING),
    (S.BLOCKED, S.PENDING),
    (S.BLOCKED, S.READY),
    (S.BLOCKED, S.FAILED),
    (S.FAILED, S.PENDING),
}
CONSTRAINTS = {
    "brandkit_version_id": "bk-3",
    "kb_version_id": "kb-12",
    "policies_version_id": "pol-2",
    "provider_config_version_id": "prov-7",
    "blueprint_set_version_id": "bp-1",
}


def node(key: str, **fields: Any) -> dict[str, Any]:
    return {"key": key, "node_type": "campaign", "title": f"node {key}"} | fields


def edge(source: str, target: str, edge_type: str = "depends_on") -> dict[str, Any]:
    return {"from_key": source, "to_key": target, "edge_type": edge_type}


def principal(role: Role) -> Principal:
    return Principal(client_id="c", role=role, key_id="k")


@pytest.mark.parametrize("current", list(S))
@pytest.mark.parametrize("target", list(S))
def test_node_status_machine_table(current: PlanNodeStatus, target: PlanNodeStatus) -> None:
    if (current, target) in ALLOWED:
        check_node_transition(current, target)
    else:
        with pytest.raises(InvalidTransition, match="allowed next statuses"):
            check_node_transition(current, target)


def test_every_status_has_a_rule_and_complete_is_final() -> None:
    assert set(NODE_TRANSITIONS) == set(S)
    assert NODE_TRANSITIONS[S.COMPLETE] == frozenset()


def test_new_node_defaults_to_pending_and_stores_inputs_as_json() -> None:
    stored = check_new_node({"node_type": "post_intent", "title": "t", "inputs": {"a": [1]}})
    assert stored["status"] == "pending" and stored["node_type"] == "post_intent"
    assert json.loads(stored["inputs"]) == {"a": [1]}
    assert decode_inputs(stored["inputs"]) == {"a": [1]}
    assert check_new_node({"node_type": "objective", "title": "t", "status": "ready"})[
        "status"
    ] == ("ready")


@pytest.mark.parametrize(
    "fields",
    [
        {"title": ""},
        {"title": "   "},
        {"title": "x" * 201},
        {"summary": "s" * 2001},
        {"quality_score": 101},
        {"quality_score": -1},
        {"quality_score": 5.5},
        {"quality_score": True},
        {"cost_estimate": -0.01},
        {"cost_estimate": float("inf")},
        {"inputs": ["not", "an", "object"]},
        {"inputs": "{}"},
        {"node_type": "essay"},
        {"status": "complete"},
        {"status": "failed"},
        {"title": None},
    ],
)
def test_bad_node_fields_are_rejected(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationFailed):
        check_new_node({"node_type": "campaign", "title": "ok"} | fields)


def test_changes_validate_only_given_fields() -> None:
    assert check_node_changes({"quality_score": 0, "cost_estimate": 0}) == {
        "quality_score": 0,
        "cost_estimate": 0.0,
    }
    assert check_node_changes({"summary": None}) == {"summary": None}
    with pytest.raises(ValidationFailed, match="node_type cannot be null"):
        check_node_changes({"node_type": None})
    with pytest.raises(ValidationFailed, match="unknown"):
        check_node_changes({"plan_id": "x"})


def test_kahn_orders_a_dag_and_names_a_cycle() -> None:
    order = topological_order(["a", "b", "c", "d"], [("a", "b"), ("b", "c"), ("a", "d")])
    assert order.index("a") < order.index("b") < order.index("c")
    with pytest.raises(CycleDetected) as caught:
        topological_order(["a", "b", "c", "x"], [("x", "a"), ("a", "b"), ("b", "c"), ("c", "a")])
    assert caught.value.code == "CYCLE"
    assert sorted(caught.value.details["cycle"]) == ["a", "b", "c"]
    assert "x" not in caught.value.details["cycle"]


def test_bulk_cycle_over_mixed_edge_types_is_rejected() -> None:
    nodes = [node("a"), node("b"), node("c")]
    edges = [edge("a", "b"), edge("b", "c", "produces"), edge("c", "a", "refines")]
    with pytest.raises(CycleDetected, match="cycle"):
        check_graph(nodes, edges)
    checked, triples = check_graph(nodes, edges[:2])
    assert [key for key, _ in checked] == ["a", "b", "c"]
    assert triples[1] == ("b", "c", PlanEdgeType.PRODUCES)


@pytest.mark.parametrize(
    ("nodes", "edges", "message"),
    [
        ([node("a"), node("a")], [], "unique"),
        ([node("")], [], "key"),
        ([node("a"), node("b")], [edge("a", "zz")], "names no node"),
        ([node("a")], [edge("a", "a")], "itself"),
        ([node("a"), node("b")], [edge("a", "b"), edge("a", "b")], "more than once"),
        ([node("a"), node("b")], [edge("a", "b", "follows")], "edge_type"),
        ([node("a"), node("b", quality_score=500)], [], r"nodes\[1\]: quality_score"),
    ],
)
def test_bulk_validation(nodes: list[Any], edges: list[Any], message: str) -> None:
    with pytest.raises(ValidationFailed, match=message):
        check_graph(nodes, edges)


def test_same_pair_with_two_edge_types_is_not_a_cycle() -> None:
    check_graph([node("a"), node("b")], [edge("a", "b"), edge("a", "b", "produces")])


def test_relationship_types_come_from_the_enum() -> None:
    assert [relationship_type(t) for t in PlanEdgeType] == [
        "DEPENDS_ON",
        "PRODUCES",
        "REFINES",
        "REQUIRES_APPROVAL",
        "SCHEDULED_FOR",
    ]
    assert ANY_PLAN_EDGE.count("|") == len(PlanEdgeType) - 1
    assert "SHORTEST 1 (b)" in CHECK_EDGE and "$client_id" in CHECK_EDGE


def test_approval_needs_a_reviewer_and_may_name_versions() -> None:
    check_approval(principal(Role.REVIEWER), PlanStatus.APPROVED, CONSTRAINTS)
    check_approval(principal(Role.ADMIN), PlanStatus.APPROVED, CONSTRAINTS | {"notes": "n"})
    check_approval(principal(Role.AGENT), PlanStatus.REVIEWED, None)
    # Naming nothing freezes the current versions; naming some freezes those and current others.
    check_approval(principal(Role.ADMIN), PlanStatus.APPROVED, None)
    check_approval(principal(Role.ADMIN), PlanStatus.APPROVED, {"kb_version_id": "v-1"})
    with pytest.raises(Forbidden):
        check_approval(principal(Role.AGENT), PlanStatus.APPROVED, None)
    with pytest.raises(ValidationFailed, match="unknown constraints fields"):
        check_approval(principal(Role.ADMIN), PlanStatus.APPROVED, {"brand": "x"})
    with pytest.raises(ValidationFailed, match="kb_version_id"):
        check_approval(
            principal(Role.ADMIN), PlanStatus.APPROVED, CONSTRAINTS | {"kb_version_id": ""}
        )
    with pytest.raises(ValidationFailed, match="only when"):
        check_approval(principal(Role.ADMIN), PlanStatus.REVIEWED, CONSTRAINTS)


def test_constraints_ref_is_frozen_after_review() -> None:
    check_ref_editable({"status": "draft"}, {"constraints_ref": "x"})
    check_ref_editable({"status": "approved"}, {"summary": "x"})
    with pytest.raises(ValidationFailed, match="constraints_ref"):
        check_ref_editable({"status": "approved"}, {"constraints_ref": "x"})
