"""Approval freezes a plan's constraints: one immutable ConstraintsSnapshot per approved plan,
pointing (FREEZES) at one version of each constraint document: the current ones, or versions
the approver names (app/domain/constraints/freeze.py).

There is no update path for a snapshot: it is created with the approval, in the same
transaction, and the plan's constraints_ref points at it from then on.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from app.domain.constraints import FREEZE, SNAPSHOT_FIELD
from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import REVIEWER_ROLES, Principal
from app.model.enums import PlanStatus

VERSION_FIELDS = tuple(SNAPSHOT_FIELD.values())
SNAPSHOT_FIELDS = frozenset({*VERSION_FIELDS, "notes"})
MAX_VERSION_ID = 200
MAX_NOTES = 2_000
# constraints_ref may be edited only before approval; afterwards it names the snapshot.
EDITABLE_REF_STATUSES = frozenset({PlanStatus.DRAFT.value, PlanStatus.REVIEWED.value})
# Run after the plan's lock and the transition check.
APPROVE_PLAN = f"""
MATCH (p:Plan {{id: $id, client_id: $client_id}})
CREATE (p)-[:CONSTRAINED_BY]->(s:ConstraintsSnapshot)
SET s = $snapshot,
    p.status = $status, p.constraints_ref = s.id, p.updated_at = $now
WITH p, s
{FREEZE}
RETURN p {{.*}} AS plan
"""


def check_approval(
    principal: Principal, target: PlanStatus, constraints: dict[str, Any] | None
) -> None:
    """Approving needs role reviewer or admin; it may name versions to freeze (the current
    ones otherwise); nothing else takes constraints."""
    if target is not PlanStatus.APPROVED:
        if constraints is not None:
            raise ValidationFailed(
                "constraints are frozen only when a plan moves to approved", field="constraints"
            )
        return
    principal.require(*REVIEWER_ROLES)
    if constraints is not None:
        check_snapshot_fields(constraints)


def check_snapshot_fields(constraints: dict[str, Any]) -> None:
    unknown = set(constraints) - SNAPSHOT_FIELDS
    if unknown:
        raise ValidationFailed(f"unknown constraints fields: {', '.join(sorted(unknown))}")
    for name in VERSION_FIELDS:
        value = constraints.get(name)
        if value is None:
            continue
        if not isinstance(value, str) or not value.strip() or len(value) > MAX_VERSION_ID:
            raise ValidationFailed(f"{name} must be 1-{MAX_VERSION_ID} characters", field=name)
    notes = constraints.get("notes")
    if notes is not None and (not isinstance(notes, str) or len(notes) > MAX_NOTES):
        raise ValidationFailed(f"notes must be at most {MAX_NOTES} characters", field="notes")


def snapshot_props(
    principal: Principal, constraints: dict[str, Any], now: datetime
) -> dict[str, Any]:
    fields = {name: constraints.get(name) for name in SNAPSHOT_FIELDS}
    return {name: value for name, value in fields.items() if value is not None} | {
        "id": new_id(),
        "client_id": principal.client_id,
        "created_at": now,
        "updated_at": now,
    }


def check_ref_editable(current: dict[str, Any], changes: dict[str, Any]) -> None:
    if "constraints_ref" in changes and current.get("status") not in EDITABLE_REF_STATUSES:
        raise ValidationFailed(
            "constraints_ref can change only while a plan is draft or reviewed; "
            "an approved plan's constraints_ref names its ConstraintsSnapshot",
            field="constraints_ref",
        )
