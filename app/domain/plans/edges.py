"""Plan edges: typed relationships between the PlanNodes of one plan, kept acyclic.

Every change to a plan's edges first takes the plan's write lock, so edge inserts into one plan
run one after another and the cycle check of each sees every edge committed before it.
Adding an edge that already exists (same nodes, same type) returns the existing edge unchanged,
so a retried request is harmless.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain.kernel.errors import CycleDetected, NotFound, ValidationFailed
from app.domain.kernel.ids import check_id, new_id
from app.domain.kernel.principal import Principal
from app.domain.plans.nodes import node_not_found
from app.graph.change_feed import Changed, note_all, unrecorded
from app.graph.executor import GraphExecutor, Tx
from app.graph.fragments import lock
from app.graph.identifiers import RelType, cypher_rel_type
from app.graph.values import plain
from app.model.enums import ChangeAction, PlanEdgeType

# Every plan edge type, as a relationship-type alternation built from the closed enum.
ANY_PLAN_EDGE = "|".join(cypher_rel_type(t.value.upper()) for t in PlanEdgeType)
EDGE_MAP = "r {.*, edge_type: toLower(type(r)), from_node_id: a.id, to_node_id: b.id}"
LOCK_EDGE_PLAN = f"""
MATCH (a:PlanNode {{id: $from_node_id, client_id: $client_id}})
OPTIONAL MATCH (b:PlanNode {{id: $to_node_id, client_id: $client_id}})
MATCH (p:Plan {{id: a.plan_id, client_id: $client_id}})
{lock("p")}
RETURN p.id AS plan_id, b.plan_id AS to_plan_id
"""
# Run after the plan's lock: the existing edge of this type, and the shortest path
# to -> ... -> from over all plan edge types (adding from -> to would close it into a cycle).
CHECK_EDGE = f"""
CYPHER 25
MATCH (a:PlanNode {{id: $from_node_id, client_id: $client_id}})
MATCH (b:PlanNode {{id: $to_node_id, client_id: $client_id}})
OPTIONAL MATCH (a)-[r]->(b) WHERE type(r) = $rel_type
OPTIONAL MATCH path = SHORTEST 1 (b)-[:{ANY_PLAN_EDGE}]->+(a)
RETURN CASE WHEN r IS NULL THEN null ELSE {EDGE_MAP} END AS existing,
       [n IN nodes(path) | n.id] AS cycle
LIMIT 1
"""
# The relationship type is a parameter whose values come only from PlanEdgeType.
CREATE_EDGES = f"""
CYPHER 25
UNWIND $edges AS e
MATCH (a:PlanNode {{id: e.from_node_id, client_id: $client_id}})
MATCH (b:PlanNode {{id: e.to_node_id, client_id: $client_id}})
CREATE (a)-[r:$(e.rel_type)]->(b)
SET r = e.props
RETURN {EDGE_MAP} AS edge
"""
LOCK_EDGE = f"""
MATCH (a:PlanNode {{client_id: $client_id}})-[r:{ANY_PLAN_EDGE}]->(b:PlanNode)
WHERE r.edge_id = $edge_id AND r.client_id = $client_id
MATCH (p:Plan {{id: r.plan_id, client_id: $client_id}})
{lock("p")}
RETURN p.id AS plan_id
"""
DELETE_EDGE = f"""
MATCH (a:PlanNode {{client_id: $client_id}})-[r:{ANY_PLAN_EDGE}]->(b:PlanNode)
WHERE r.edge_id = $edge_id AND r.client_id = $client_id
WITH a, b, r, {EDGE_MAP} AS edge
DELETE r
RETURN edge
"""


def relationship_type(edge_type: PlanEdgeType) -> str:
    """The relationship type of an edge type; the model must declare it (else ValueError)."""
    return str(RelType(PlanEdgeType(edge_type).value.upper()).value)


def edge_spec(
    principal: Principal,
    *,
    plan_id: str,
    from_node_id: str,
    to_node_id: str,
    edge_type: PlanEdgeType,
    now: datetime,
) -> dict[str, Any]:
    """One row of CREATE_EDGES: endpoints, relationship type and the edge's properties."""
    props = {
        "edge_id": new_id(),
        "plan_id": plan_id,
        "client_id": principal.client_id,
        "created_at": now,
    }
    return {
        "from_node_id": from_node_id,
        "to_node_id": to_node_id,
        "rel_type": relationship_type(edge_type),
        "props": props,
    }


def edge_record(edge: Any) -> dict[str, Any]:
    return dict(plain(edge))


def edges_changed(rows: list[dict[str, Any]]) -> list[Changed]:
    """An edge is a relationship, no record: adding or removing one updates its source node."""
    return [
        Changed(
            edge["client_id"],
            "PlanNode",
            edge["from_node_id"],
            ChangeAction.UPDATED,
            parent_id=edge["plan_id"],
        )
        for edge in (row["edge"] for row in rows)
    ]


async def add_plan_edge(
    graph: GraphExecutor,
    *,
    principal: Principal,
    from_node_id: str,
    to_node_id: str,
    edge_type: PlanEdgeType,
) -> dict[str, Any]:
    principal.require_writer()
    ends = {
        "from_node_id": check_id(from_node_id, field="from_node_id"),
        "to_node_id": check_id(to_node_id, field="to_node_id"),
        "client_id": principal.client_id,
    }
    if ends["from_node_id"] == ends["to_node_id"]:
        raise ValidationFailed("an edge cannot connect a node to itself", field="to_node_id")
    rel_type = relationship_type(edge_type)

    async def work(tx: Tx) -> dict[str, Any]:
        plan_id = await _lock_plan_of(tx, ends)
        check = (await tx.run(CHECK_EDGE, ends | {"rel_type": rel_type}))[0]
        if check["existing"] is not None:
            unrecorded()  # the plan's lock only: the edge was there already
            return edge_record(check["existing"])
        if check["cycle"]:
            raise CycleDetected(
                "this edge would close a cycle in the plan graph: "
                + " -> ".join([*check["cycle"], ends["to_node_id"]]),
                cycle=check["cycle"],
            )
        spec = edge_spec(principal, plan_id=plan_id, edge_type=edge_type, now=_now(), **_ids(ends))
        rows = await tx.run(CREATE_EDGES, {"client_id": principal.client_id, "edges": [spec]})
        note_all(edges_changed, rows)
        return edge_record(rows[0]["edge"])

    return await graph.in_transaction(work)


async def remove_plan_edge(
    graph: GraphExecutor, *, principal: Principal, edge_id: str
) -> dict[str, Any]:
    """Delete an edge by its edge_id; returns the edge as it was."""
    principal.require_writer()
    scope = {"edge_id": check_id(edge_id, field="edge_id"), "client_id": principal.client_id}

    async def work(tx: Tx) -> dict[str, Any]:
        locked = await tx.run(LOCK_EDGE, scope)
        rows = await tx.run(DELETE_EDGE, scope) if locked else []
        if not rows:
            raise NotFound(f"no plan edge with id {scope['edge_id']}", id=scope["edge_id"])
        note_all(edges_changed, rows)
        return edge_record(rows[0]["edge"])

    return await graph.in_transaction(work)


async def _lock_plan_of(tx: Tx, ends: dict[str, str]) -> str:
    """Lock the plan of both endpoints; NOT_FOUND for a node the client does not have."""
    rows = await tx.run(LOCK_EDGE_PLAN, ends)
    if not rows:
        raise node_not_found(ends["from_node_id"])
    if rows[0]["to_plan_id"] is None:
        raise node_not_found(ends["to_node_id"])
    if rows[0]["to_plan_id"] != rows[0]["plan_id"]:
        raise ValidationFailed(
            "both nodes of an edge must belong to the same plan", field="to_node_id"
        )
    return str(rows[0]["plan_id"])


def _ids(ends: dict[str, str]) -> dict[str, str]:
    return {"from_node_id": ends["from_node_id"], "to_node_id": ends["to_node_id"]}


def _now() -> datetime:
    return datetime.now(UTC)
