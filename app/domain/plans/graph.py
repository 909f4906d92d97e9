"""A whole plan graph in one transaction: the plan, its nodes and its edges, or nothing.

Nodes are named by client-side keys in the request; edges name their ends by those keys.
Everything, acyclicity included, is validated in Python before the first write.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain.kernel.principal import Principal
from app.domain.plans.edges import CREATE_EDGES, edge_record, edge_spec
from app.domain.plans.graph_rules import check_graph
from app.domain.plans.nodes import CREATE_NODES, node_props, node_record, nodes_created
from app.domain.plans.repository import CREATE_PLAN, new_plan_props
from app.graph.change_feed import note_all, note_change
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import ChangeAction


async def create_plan_graph(
    graph: GraphExecutor,
    *,
    principal: Principal,
    plan: dict[str, Any],
    nodes: list[dict[str, Any]],
    edges: list[dict[str, Any]],
) -> dict[str, Any]:
    """Returns {plan, nodes (in input order), edges (in input order), keys: {key: node id}}."""
    principal.require_writer()
    plan_props = new_plan_props(principal, plan)
    checked_nodes, checked_edges = check_graph(nodes, edges)
    now = datetime.now(UTC)
    plan_id = plan_props["id"]
    node_rows = [
        node_props(principal, plan_id=plan_id, stored=fields, now=now)
        for _, fields in checked_nodes
    ]
    ids = {key: row["id"] for (key, _), row in zip(checked_nodes, node_rows, strict=True)}
    edge_rows = [
        edge_spec(
            principal,
            plan_id=plan_id,
            from_node_id=ids[source],
            to_node_id=ids[target],
            edge_type=edge_type,
            now=now,
        )
        for source, target, edge_type in checked_edges
    ]
    scope = {"plan_id": plan_id, "client_id": principal.client_id}

    async def work(tx: Tx) -> dict[str, Any]:
        created = await tx.run(CREATE_PLAN, {"props": plan_props})
        made_nodes = await tx.run(CREATE_NODES, scope | {"nodes": node_rows}) if node_rows else []
        made_edges = await tx.run(CREATE_EDGES, scope | {"edges": edge_rows}) if edge_rows else []
        if len(made_nodes) != len(node_rows) or len(made_edges) != len(edge_rows):
            raise RuntimeError("the plan graph was not written whole; rolled back")
        # The edges are between nodes created here: the nodes' own entries stand for them.
        note_change(principal.client_id, "Plan", plan_id, ChangeAction.CREATED)
        note_all(nodes_created, made_nodes)
        by_id = {row["node"]["id"]: node_record(row["node"]) for row in made_nodes}
        by_edge_id = {row["edge"]["edge_id"]: edge_record(row["edge"]) for row in made_edges}
        return {
            "plan": dict(plain(created[0]["plan"])),
            "nodes": [by_id[row["id"]] for row in node_rows],
            "edges": [by_edge_id[row["props"]["edge_id"]] for row in edge_rows],
            "keys": ids,
        }

    return await graph.in_transaction(work)
