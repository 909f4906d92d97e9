from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.plans.types import Plan, PlanConnection, PlanWhere
from app.domain import plans


@strawberry.type
class PlanQueries:
    @strawberry.field(description="One plan of the caller's client; NOT_FOUND otherwise.")
    async def plan(self, info: Info, id: strawberry.ID) -> Plan:
        record = await plans.get_plan(
            info.context.graph, principal=info.context.caller(), plan_id=id
        )
        return Plan.from_record(record)

    @strawberry.field(description="The caller's plans, newest first, with cursor pagination.")
    async def plans(
        self,
        info: Info,
        where: PlanWhere | None = None,
        first: int = 20,
        after: str | None = None,
    ) -> PlanConnection:
        condition = where or PlanWhere()
        page = await plans.list_plans(
            info.context.graph,
            principal=info.context.caller(),
            where=plans.PlanFilter(
                statuses=condition.status_in,
                created_after=condition.created_after,
                created_before=condition.created_before,
                name_contains=condition.name_contains,
            ),
            first=first,
            after=after,
        )
        return PlanConnection.from_page(page)
