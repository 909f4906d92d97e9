"""Results of the plan graph mutations.

Single-node mutations return the PlanNode read type (re-read in one query when the caller
selects its relationships); the bulk result builds its nodes from the written records.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry

from app.api.types.plans import Plan, PlanNode
from app.model.enums import PlanEdgeType


@strawberry.type(description="A typed edge between two nodes of one plan (seed 000, 3.2.3).")
class PlanEdgeResult:
    edge_id: strawberry.ID
    edge_type: PlanEdgeType
    from_node_id: strawberry.ID
    to_node_id: strawberry.ID
    plan_id: strawberry.ID
    created_at: datetime


@strawberry.type(description="The node id given to a client-side key of createPlanGraph.")
class PlanGraphKey:
    key: str
    node_id: strawberry.ID


@strawberry.type(description="A plan graph as written; nodes and edges in the input's order.")
class PlanGraphResult:
    plan: Plan
    nodes: list[PlanNode]
    edges: list[PlanEdgeResult]
    keys: list[PlanGraphKey]


def plan_node_result(record: dict[str, Any]) -> PlanNode:
    return PlanNode.from_row(record)


def plan_edge_result(record: dict[str, Any]) -> PlanEdgeResult:
    return PlanEdgeResult(
        edge_id=strawberry.ID(record["edge_id"]),
        edge_type=PlanEdgeType(record["edge_type"]),
        from_node_id=strawberry.ID(record["from_node_id"]),
        to_node_id=strawberry.ID(record["to_node_id"]),
        plan_id=strawberry.ID(record["plan_id"]),
        created_at=record["created_at"],
    )


def plan_graph_result(result: dict[str, Any]) -> PlanGraphResult:
    return PlanGraphResult(
        plan=Plan.from_row(result["plan"]),
        nodes=[plan_node_result(node) for node in result["nodes"]],
        edges=[plan_edge_result(edge) for edge in result["edges"]],
        keys=[PlanGraphKey(key=k, node_id=strawberry.ID(v)) for k, v in result["keys"].items()],
    )
