"""Inputs of the Plan mutations."""

from __future__ import annotations

from datetime import datetime

import strawberry

from app.model.enums import CreatedBy, ObjectiveTag, Platform


@strawberry.input
class CreatePlanInput:
    name: str
    created_by: CreatedBy
    time_window_start: datetime | None = None
    time_window_end: datetime | None = None
    objective_tags: list[ObjectiveTag] = strawberry.field(default_factory=list)
    target_platforms: list[Platform] = strawberry.field(default_factory=list)
    summary: str | None = None
    constraints_ref: str | None = None


@strawberry.input(description="Only the fields given are changed; null clears an optional one.")
class UpdatePlanInput:
    name: str | None = strawberry.UNSET
    time_window_start: datetime | None = strawberry.UNSET
    time_window_end: datetime | None = strawberry.UNSET
    objective_tags: list[ObjectiveTag] | None = strawberry.UNSET
    target_platforms: list[Platform] | None = strawberry.UNSET
    summary: str | None = strawberry.UNSET
    constraints_ref: str | None = strawberry.UNSET
