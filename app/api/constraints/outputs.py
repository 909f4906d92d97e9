"""Constraint read results: a diff, and the versions a plan works under."""

from __future__ import annotations

from enum import StrEnum

import strawberry
from strawberry.scalars import JSON

from app.api.types.constraints import ConstraintVersion
from app.api.types.plans import ConstraintsSnapshot
from app.domain.constraints import InForce, VersionDiff
from app.model.enums import PlanStatus


@strawberry.enum(description="How a field changed between two versions.")
class ChangeOp(StrEnum):
    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"


@strawberry.type(
    description="One field that differs; list items by their key, e.g. facts[warranty]."
)
class ConstraintChange:
    path: str
    op: ChangeOp
    before: JSON | None
    after: JSON | None


@strawberry.type(description="What changed from one version of a document to another.")
class ConstraintDiff:
    document_id: strawberry.ID
    from_version: int
    to_version: int
    changes: list[ConstraintChange]

    @classmethod
    def of(cls, diff: VersionDiff) -> ConstraintDiff:
        changes = [
            ConstraintChange(path=c.path, op=ChangeOp(c.op), before=c.before, after=c.after)
            for c in diff.changes
        ]
        return cls(
            document_id=strawberry.ID(diff.document_id),
            from_version=diff.from_version,
            to_version=diff.to_version,
            changes=changes,
        )


@strawberry.type(
    description="The constraint versions a plan works under: those its approval froze, or the "
    "current ones while it is not approved."
)
class ConstraintsInForce:
    plan_id: strawberry.ID
    plan_status: PlanStatus
    frozen: bool = strawberry.field(description="True once approved: the versions are frozen.")
    snapshot: ConstraintsSnapshot | None
    versions: list[ConstraintVersion] = strawberry.field(description="One per kind, by kind.")

    @classmethod
    def of(cls, found: InForce) -> ConstraintsInForce:
        return cls(
            plan_id=strawberry.ID(found.plan_id),
            plan_status=PlanStatus(found.plan_status),
            frozen=found.frozen,
            snapshot=ConstraintsSnapshot.from_row(found.snapshot) if found.snapshot else None,
            versions=[ConstraintVersion.from_row(row) for row in found.versions],
        )
