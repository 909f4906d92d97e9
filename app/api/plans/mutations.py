from __future__ import annotations

import dataclasses

import strawberry

from app.api.context import Info
from app.api.idempotent import IdempotencyKey, create_once, idempotent
from app.api.inputs import given_fields
from app.api.plans.graph_inputs import ConstraintsSnapshotInput
from app.api.plans.inputs import CreatePlanInput, UpdatePlanInput
from app.api.read.nodes import load_written
from app.api.types.plans import Plan
from app.domain import plans
from app.model.enums import PlanStatus

NON_NULL_ON_UPDATE = frozenset({"name", "objective_tags", "target_platforms"})


@strawberry.type
class PlanMutations:
    @strawberry.mutation(description="Create a plan in status draft.")
    @idempotent
    async def create_plan(
        self, info: Info, input: CreatePlanInput, idempotency_key: IdempotencyKey = None
    ) -> Plan:
        record = await create_once(
            info,
            lambda graph: plans.create_plan(
                graph,
                principal=info.context.caller(),
                fields=dataclasses.asdict(input),
            ),
        )
        return await load_written(info, "Plan", record)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Change a plan's fields (not its status).")
    async def update_plan(self, info: Info, id: strawberry.ID, input: UpdatePlanInput) -> Plan:
        record = await plans.update_plan(
            info.context.graph,
            principal=info.context.caller(),
            plan_id=id,
            changes=given_fields(input, required=NON_NULL_ON_UPDATE),
        )
        return await load_written(info, "Plan", record)  # type: ignore[no-any-return]

    @strawberry.mutation(
        description="Move a plan to another status; INVALID_TRANSITION if not allowed. "
        "Approving (role reviewer or admin) needs `constraints`, frozen as the plan's "
        "ConstraintsSnapshot in the same transaction."
    )
    async def transition_plan(
        self,
        info: Info,
        id: strawberry.ID,
        to: PlanStatus,
        constraints: ConstraintsSnapshotInput | None = None,
    ) -> Plan:
        record = await plans.transition_plan(
            info.context.graph,
            principal=info.context.caller(),
            plan_id=id,
            target=to,
            constraints=dataclasses.asdict(constraints) if constraints else None,
        )
        return await load_written(info, "Plan", record)  # type: ignore[no-any-return]
