"""PlanNode repository: every function takes the principal and scopes its Cypher by client_id."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain.kernel.errors import NotFound, ValidationFailed
from app.domain.kernel.ids import check_id, new_id
from app.domain.kernel.principal import Principal
from app.domain.plans.node_rules import (
    check_new_node,
    check_node_changes,
    check_node_transition,
    decode_inputs,
)
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import PlanNodeStatus

# Rows come back in the order of $nodes; no row when the plan is not the client's.
CREATE_NODES = """
MATCH (p:Plan {id: $plan_id, client_id: $client_id})
UNWIND $nodes AS props
CREATE (p)-[:HAS_NODE]->(n:PlanNode)
SET n = props
RETURN n {.*} AS node
"""
GET_NODE = """
MATCH (n:PlanNode {id: $id, client_id: $client_id})
RETURN n {.*} AS node
"""
# Setting and removing a dummy property takes the node's write lock before the read.
LOCK_NODE = """
MATCH (n:PlanNode {id: $id, client_id: $client_id})
SET n._lock = true REMOVE n._lock
RETURN n {.*} AS node
"""
UPDATE_NODE = """
MATCH (n:PlanNode {id: $id, client_id: $client_id})
SET n += $changes, n.updated_at = $now
RETURN n {.*} AS node
"""


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
    rows = await graph.write(CREATE_NODES, params)
    if not rows:
        raise plan_not_found(plan_id)
    return node_record(rows[0]["node"])


async def get_plan_node(
    graph: GraphExecutor, *, principal: Principal, node_id: str
) -> dict[str, Any]:
    scope = _scope(principal, node_id)
    rows = await graph.read(GET_NODE, scope)
    if not rows:
        raise node_not_found(scope["id"])
    return node_record(rows[0]["node"])


async def update_plan_node(
    graph: GraphExecutor, *, principal: Principal, node_id: str, changes: dict[str, Any]
) -> dict[str, Any]:
    """Change a node's fields (not its status); a null clears an optional field."""
    principal.require_writer()
    if "status" in changes:
        raise ValidationFailed("change a node's status with transitionPlanNode", field="status")
    stored = check_node_changes(changes)
    scope = _scope(principal, node_id)

    async def work(tx: Tx) -> dict[str, Any]:
        await _locked_node(tx, scope)
        rows = await tx.run(UPDATE_NODE, scope | {"changes": stored, "now": _now()})
        return node_record(rows[0]["node"])

    return await graph.in_transaction(work)


async def transition_plan_node(
    graph: GraphExecutor, *, principal: Principal, node_id: str, target: PlanNodeStatus
) -> dict[str, Any]:
    principal.require_writer()
    scope = _scope(principal, node_id)

    async def work(tx: Tx) -> dict[str, Any]:
        current = await _locked_node(tx, scope)
        check_node_transition(PlanNodeStatus(current["status"]), target)
        params = scope | {"changes": {"status": target.value}, "now": _now()}
        rows = await tx.run(UPDATE_NODE, params)
        return node_record(rows[0]["node"])

    return await graph.in_transaction(work)


async def _locked_node(tx: Tx, scope: dict[str, str]) -> dict[str, Any]:
    rows = await tx.run(LOCK_NODE, scope)
    if not rows:
        raise node_not_found(scope["id"])
    return dict(plain(rows[0]["node"]))


def _scope(principal: Principal, node_id: str) -> dict[str, str]:
    return {"id": check_id(node_id, field="id"), "client_id": principal.client_id}


def _now() -> datetime:
    return datetime.now(UTC)
