from __future__ import annotations

import dataclasses

import strawberry

from app.api.context import Info
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.inputs import given_fields
from app.api.plans.graph_inputs import ConstraintsSnapshotInput
from app.api.plans.inputs import CreatePlanInput, UpdatePlanInput
from app.api.resolve import write
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
        return await write(info, plans.create_plan, Plan, fields=dataclasses.asdict(input))

    @strawberry.mutation(description="Change a plan's fields (not its status).")
    async def update_plan(self, info: Info, id: strawberry.ID, input: UpdatePlanInput) -> Plan:
        changes = given_fields(input, required=NON_NULL_ON_UPDATE)
        return await write(info, plans.update_plan, Plan, plan_id=id, changes=changes)

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
        frozen = dataclasses.asdict(constraints) if constraints else None
        return await write(
            info, plans.transition_plan, Plan, plan_id=id, target=to, constraints=frozen
        )
