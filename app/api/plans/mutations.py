from __future__ import annotations

import dataclasses

import strawberry

from app.api.context import Info
from app.api.plans.graph_inputs import ConstraintsSnapshotInput
from app.api.plans.inputs import CreatePlanInput, UpdatePlanInput
from app.api.record_mutations import creates, updates
from app.api.resolve import write
from app.api.types.plans import Plan
from app.domain import plans
from app.model.enums import PlanStatus

NON_NULL_ON_UPDATE = frozenset({"name", "objective_tags", "target_platforms"})


@strawberry.type
class PlanMutations:
    create_plan = creates(
        plans.create_plan, Plan, CreatePlanInput, "Create a plan in status draft."
    )
    update_plan = updates(
        plans.update_plan,
        Plan,
        UpdatePlanInput,
        "Change a plan's fields (not its status).",
        id_name="plan_id",
        required=NON_NULL_ON_UPDATE,
    )

    @strawberry.mutation(
        description="Move a plan to another status; INVALID_TRANSITION if not allowed. "
        "Approving (role reviewer or admin) freezes one version of each constraint document "
        "(the current ones, or those `constraints` names; VALIDATION if the client lacks a "
        "kind) as the plan's ConstraintsSnapshot, in the same transaction."
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
