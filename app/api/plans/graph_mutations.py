"""Plan graph mutations: thin resolvers over app/domain/plans (nodes, edges, graph)."""

from __future__ import annotations

import dataclasses

import strawberry

from app.api.context import Info
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.inputs import given_fields, input_arguments
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
from app.api.resolve import run, write
from app.api.types.plans import PlanNode
from app.domain import plans
from app.model.enums import PlanNodeStatus

NON_NULL_ON_UPDATE = frozenset({"node_type", "title"})


@strawberry.type
class PlanGraphMutations:
    @strawberry.mutation(description="Add a node to a plan; it starts PENDING unless given.")
    @idempotent
    async def create_plan_node(
        self, info: Info, input: CreatePlanNodeInput, idempotency_key: IdempotencyKey = None
    ) -> PlanNode:
        arguments = input_arguments(input, "plan_id")
        return await write(info, plans.create_plan_node, PlanNode, **arguments)

    @strawberry.mutation(description="Change a plan node's fields (not its status).")
    async def update_plan_node(
        self, info: Info, id: strawberry.ID, input: UpdatePlanNodeInput
    ) -> PlanNode:
        changes = given_fields(input, required=NON_NULL_ON_UPDATE)
        return await write(info, plans.update_plan_node, PlanNode, node_id=id, changes=changes)

    @strawberry.mutation(
        description="Move a plan node to another status; INVALID_TRANSITION if not allowed."
    )
    async def transition_plan_node(
        self, info: Info, id: strawberry.ID, to: PlanNodeStatus
    ) -> PlanNode:
        return await write(info, plans.transition_plan_node, PlanNode, node_id=id, target=to)

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
