"""Plan rules: the status machine and field validation, checked before anything is written."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.status_machine import check_transition as check_status
from app.model.enums import PlanStatus

S = PlanStatus
PLAN_TRANSITIONS: dict[PlanStatus, frozenset[PlanStatus]] = {
    S.DRAFT: frozenset({S.REVIEWED, S.ARCHIVED}),
    S.REVIEWED: frozenset({S.DRAFT, S.APPROVED, S.ARCHIVED}),
    S.APPROVED: frozenset({S.EXECUTING, S.ARCHIVED}),
    S.EXECUTING: frozenset({S.COMPLETE, S.ARCHIVED}),
    S.COMPLETE: frozenset({S.ARCHIVED}),
    S.ARCHIVED: frozenset(),
}
MAX_NAME = 200
MAX_SUMMARY = 2_000
MAX_REF = 200


def check_transition(current: PlanStatus, target: PlanStatus) -> None:
    check_status(PLAN_TRANSITIONS, current, target, what="a plan")


def check_plan_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """Validate the writable fields present in `fields`; returns them unchanged."""
    if "name" in fields:
        name = fields["name"]
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
            raise ValidationFailed(f"name must be 1-{MAX_NAME} characters", field="name")
    _check_length(fields, "summary", MAX_SUMMARY)
    _check_length(fields, "constraints_ref", MAX_REF)
    for field in ("time_window_start", "time_window_end"):
        value = fields.get(field)
        if value is not None and value.tzinfo is None:
            raise ValidationFailed(f"{field} needs a time zone (e.g. 2026-02-01T00:00:00Z)")
    check_time_window(fields.get("time_window_start"), fields.get("time_window_end"))
    return fields


def check_time_window(start: datetime | None, end: datetime | None) -> None:
    if start is not None and end is not None and end < start:
        raise ValidationFailed(
            "time_window_end must not be before time_window_start", field="time_window_end"
        )


def _check_length(fields: dict[str, Any], field: str, limit: int) -> None:
    value = fields.get(field)
    if value is not None and len(value) > limit:
        raise ValidationFailed(f"{field} must be at most {limit} characters", field=field)
