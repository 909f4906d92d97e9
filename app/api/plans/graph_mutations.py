"""Plan graph mutations: thin resolvers over app/domain/plans (nodes, edges, graph)."""

from __future__ import annotations

import dataclasses

import strawberry

from app.api.context import Info
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.plans.graph_inputs import (
    AddPlanEdgeInput,
    CreatePlanGraphInput,
    CreatePlanNodeInput,
    UpdatePlanNodeInput,
)
from app.api.plans.graph_outputs import (
    PlanEdgeResult,
    PlanGraphResult,
    plan_edge_result,
    plan_graph_result,
)
from app.api.record_mutations import creates, transitions, updates
from app.api.resolve import run
from app.api.types.plans import PlanNode
from app.domain import plans
from app.model.enums import PlanNodeStatus

NON_NULL_ON_UPDATE = frozenset({"node_type", "title"})


@strawberry.type
class PlanGraphMutations:
    create_plan_node = creates(
        plans.create_plan_node,
        PlanNode,
        CreatePlanNodeInput,
        "Add a node to a plan; it starts PENDING unless given.",
        apart=("plan_id",),
    )
    update_plan_node = updates(
        plans.update_plan_node,
        PlanNode,
        UpdatePlanNodeInput,
        "Change a plan node's fields (not its status).",
        id_name="node_id",
        required=NON_NULL_ON_UPDATE,
    )
    transition_plan_node = transitions(
        plans.transition_plan_node,
        PlanNode,
        PlanNodeStatus,
        "Move a plan node to another status; INVALID_TRANSITION if not allowed.",
        id_name="node_id",
    )

    @strawberry.mutation(
        description="Add a typed edge between two nodes of one plan. CYCLE if it would close "
        "a cycle over all edge types; an edge that already exists is returned unchanged."
    )
    async def add_plan_edge(self, info: Info, input: AddPlanEdgeInput) -> PlanEdgeResult:
        edge = dataclasses.asdict(input)
        return plan_edge_result(await run(info, plans.add_plan_edge, **edge))

    @strawberry.mutation(description="Remove a plan edge by its edgeId; returns the removed edge.")
    async def remove_plan_edge(self, info: Info, edge_id: strawberry.ID) -> PlanEdgeResult:
        return plan_edge_result(await run(info, plans.remove_plan_edge, edge_id=edge_id))

    @strawberry.mutation(
        description="Create a plan with its nodes and edges in one transaction, all or nothing; "
        "edges name nodes by their keys. CYCLE if the edges are not acyclic."
    )
    @idempotent
    async def create_plan_graph(
        self, info: Info, input: CreatePlanGraphInput, idempotency_key: IdempotencyKey = None
    ) -> PlanGraphResult:
        result = await run(
            info,
            plans.create_plan_graph,
            plan=dataclasses.asdict(input.plan),
            nodes=[dataclasses.asdict(node) for node in input.nodes],
            edges=[dataclasses.asdict(edge) for edge in input.edges],
        )
        return plan_graph_result(result)
