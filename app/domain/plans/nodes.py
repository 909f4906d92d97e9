"""PlanNode repository: every function takes the principal and scopes its Cypher by client_id."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain.kernel.errors import NotFound, ValidationFailed
from app.domain.kernel.ids import check_id, new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import OwnedNode
from app.domain.plans.node_rules import (
    NODE_TRANSITIONS,
    check_new_node,
    check_node_changes,
    decode_inputs,
)
from app.graph.change_feed import Changed
from app.graph.executor import GraphExecutor
from app.graph.values import plain
from app.model.enums import ChangeAction, PlanNodeStatus

# Rows come back in the order of $nodes; no row when the plan is not the client's.
CREATE_NODES = """
MATCH (p:Plan {id: $plan_id, client_id: $client_id})
UNWIND $nodes AS props
CREATE (p)-[:HAS_NODE]->(n:PlanNode)
SET n = props
RETURN n {.*} AS node
"""
NODE = OwnedNode("PlanNode", "node", what="plan node", parent=("plan_id",))


def node_props(
    principal: Principal, *, plan_id: str, stored: dict[str, Any], now: datetime
) -> dict[str, Any]:
    """The properties of a new node from its validated fields (see check_new_node)."""
    return {key: value for key, value in stored.items() if value is not None} | {
        "id": new_id(),
        "plan_id": plan_id,
        "client_id": principal.client_id,
        "created_at": now,
        "updated_at": now,
    }


def node_record(node: Any) -> dict[str, Any]:
    """A node as the API sees it: plain values, `inputs` decoded from its JSON text."""
    record = dict(plain(node))
    record["inputs"] = decode_inputs(record.get("inputs"))
    return record


def plan_not_found(plan_id: str) -> NotFound:
    return NotFound(f"no plan with id {plan_id}", id=plan_id)


def node_not_found(node_id: str) -> NotFound:
    return NotFound(f"no plan node with id {node_id}", id=node_id)


async def create_plan_node(
    graph: GraphExecutor, *, principal: Principal, plan_id: str, fields: dict[str, Any]
) -> dict[str, Any]:
    principal.require_writer()
    plan_id = check_id(plan_id, field="plan_id")
    props = node_props(principal, plan_id=plan_id, stored=check_new_node(fields), now=_now())
    params = {"plan_id": plan_id, "client_id": principal.client_id, "nodes": [props]}
    rows = await graph.write(CREATE_NODES, params, changed=nodes_created)
    if not rows:
        raise plan_not_found(plan_id)
    return node_record(rows[0]["node"])


def nodes_created(rows: list[dict[str, Any]]) -> list[Changed]:
    """The nodes CREATE_NODES made (rows of `node`), each in its plan."""
    return [
        Changed(n["client_id"], "PlanNode", n["id"], ChangeAction.CREATED, parent_id=n["plan_id"])
        for n in (row["node"] for row in rows)
    ]


async def get_plan_node(
    graph: GraphExecutor, *, principal: Principal, node_id: str
) -> dict[str, Any]:
    return node_record(await NODE.read(graph, NODE.scope(principal, node_id)))


async def update_plan_node(
    graph: GraphExecutor, *, principal: Principal, node_id: str, changes: dict[str, Any]
) -> dict[str, Any]:
    """Change a node's fields (not its status); a null clears an optional field."""
    principal.require_writer()
    if "status" in changes:
        raise ValidationFailed("change a node's status with transitionPlanNode", field="status")
    stored = check_node_changes(changes)
    scope = NODE.scope(principal, node_id)
    return node_record(await NODE.locked_change(graph, scope, lambda _: stored))


async def transition_plan_node(
    graph: GraphExecutor, *, principal: Principal, node_id: str, target: PlanNodeStatus
) -> dict[str, Any]:
    moved = await NODE.transition(
        graph, principal, node_id, target, NODE_TRANSITIONS, what="a plan node"
    )
    return node_record(moved)


def _now() -> datetime:
    return datetime.now(UTC)
