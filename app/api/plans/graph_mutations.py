"""Plan graph mutations: thin resolvers over app/domain/plans (nodes, edges, graph)."""

from __future__ import annotations

import dataclasses
from typing import Any

import strawberry

from app.api.context import Info
from app.api.idempotent import IdempotencyKey, create_once, idempotent
from app.api.inputs import given_fields
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
from app.api.read.nodes import load_written
from app.api.types.plans import PlanNode
from app.domain import plans
from app.graph.executor import GraphExecutor
from app.model.enums import PlanNodeStatus

NON_NULL_ON_UPDATE = frozenset({"node_type", "title"})


@strawberry.type
class PlanGraphMutations:
    @strawberry.mutation(description="Add a node to a plan; it starts PENDING unless given.")
    @idempotent
    async def create_plan_node(
        self, info: Info, input: CreatePlanNodeInput, idempotency_key: IdempotencyKey = None
    ) -> PlanNode:
        async def create(graph: GraphExecutor) -> dict[str, Any]:
            fields = dataclasses.asdict(input)  # anew on every run: it may be retried
            return await plans.create_plan_node(
                graph, principal=info.context.caller(), plan_id=fields.pop("plan_id"), fields=fields
            )

        record = await create_once(info, create)
        return await load_written(info, "PlanNode", record)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Change a plan node's fields (not its status).")
    async def update_plan_node(
        self, info: Info, id: strawberry.ID, input: UpdatePlanNodeInput
    ) -> PlanNode:
        record = await plans.update_plan_node(
            info.context.graph,
            principal=info.context.caller(),
            node_id=id,
            changes=given_fields(input, required=NON_NULL_ON_UPDATE),
        )
        return await load_written(info, "PlanNode", record)  # type: ignore[no-any-return]

    @strawberry.mutation(
        description="Move a plan node to another status; INVALID_TRANSITION if not allowed."
    )
    async def transition_plan_node(
        self, info: Info, id: strawberry.ID, to: PlanNodeStatus
    ) -> PlanNode:
        record = await plans.transition_plan_node(
            info.context.graph, principal=info.context.caller(), node_id=id, target=to
        )
        return await load_written(info, "PlanNode", record)  # type: ignore[no-any-return]

    @strawberry.mutation(
        description="Add a typed edge between two nodes of one plan. CYCLE if it would close "
        "a cycle over all edge types; an edge that already exists is returned unchanged."
    )
    async def add_plan_edge(self, info: Info, input: AddPlanEdgeInput) -> PlanEdgeResult:
        record = await plans.add_plan_edge(
            info.context.graph,
            principal=info.context.caller(),
            from_node_id=input.from_node_id,
            to_node_id=input.to_node_id,
            edge_type=input.edge_type,
        )
        return plan_edge_result(record)

    @strawberry.mutation(description="Remove a plan edge by its edgeId; returns the removed edge.")
    async def remove_plan_edge(self, info: Info, edge_id: strawberry.ID) -> PlanEdgeResult:
        record = await plans.remove_plan_edge(
            info.context.graph, principal=info.context.caller(), edge_id=edge_id
        )
        return plan_edge_result(record)

    @strawberry.mutation(
        description="Create a plan with its nodes and edges in one transaction, all or nothing; "
        "edges name nodes by their keys. CYCLE if the edges are not acyclic."
    )
    @idempotent
    async def create_plan_graph(
        self, info: Info, input: CreatePlanGraphInput, idempotency_key: IdempotencyKey = None
    ) -> PlanGraphResult:
        result = await create_once(
            info,
            lambda graph: plans.create_plan_graph(
                graph,
                principal=info.context.caller(),
                plan=dataclasses.asdict(input.plan),
                nodes=[dataclasses.asdict(node) for node in input.nodes],
                edges=[dataclasses.asdict(edge) for edge in input.edges],
            ),
        )
        return plan_graph_result(result)
