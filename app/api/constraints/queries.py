"""Constraint reads beyond the root fields: diff, the kind's schema, what a plan works under."""

from __future__ import annotations

from typing import cast

import strawberry
from strawberry.scalars import JSON

from app.api.constraints.outputs import ConstraintDiff, ConstraintsInForce
from app.api.context import Info
from app.api.resolve import run
from app.domain import constraints
from app.model.enums import ConstraintKind


@strawberry.type
class ConstraintQueries:
    @strawberry.field(description="What changed between two versions of a document.")
    async def constraint_diff(
        self, info: Info, document_id: strawberry.ID, from_version: int, to_version: int
    ) -> ConstraintDiff:
        found = await run(
            info,
            constraints.diff_versions,
            document_id=document_id,
            from_version=from_version,
            to_version=to_version,
        )
        return ConstraintDiff.of(found)

    @strawberry.field(
        description="The versions a plan works under: frozen at its approval, else current "
        "(seed 000, 3.4: load ConstraintsSnapshot references)."
    )
    async def constraints_in_force(self, info: Info, plan_id: strawberry.ID) -> ConstraintsInForce:
        found = await run(info, constraints.constraints_in_force, plan_id=plan_id)
        return ConstraintsInForce.of(found)

    @strawberry.field(description="The JSON Schema a kind's content must fit.")
    def constraint_schema(self, kind: ConstraintKind) -> JSON:
        return cast(JSON, constraints.json_schema(kind))
