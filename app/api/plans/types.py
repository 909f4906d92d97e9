"""GraphQL types of the Plan aggregate; tests hold their fields to the model in app/model."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry

from app.domain.pagination import Page
from app.model.enums import CreatedBy, ObjectiveTag, PlanStatus, Platform


@strawberry.type(description="A planned batch of content for a time window (seed 000, 3.2.1).")
class Plan:
    id: strawberry.ID
    name: str
    time_window_start: datetime | None
    time_window_end: datetime | None
    objective_tags: list[ObjectiveTag]
    target_platforms: list[Platform]
    status: PlanStatus
    summary: str | None
    constraints_ref: str | None
    created_by: CreatedBy
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Plan:
        return cls(
            id=strawberry.ID(record["id"]),
            name=record["name"],
            time_window_start=record.get("time_window_start"),
            time_window_end=record.get("time_window_end"),
            objective_tags=[ObjectiveTag(t) for t in record.get("objective_tags") or []],
            target_platforms=[Platform(p) for p in record.get("target_platforms") or []],
            status=PlanStatus(record["status"]),
            summary=record.get("summary"),
            constraints_ref=record.get("constraints_ref"),
            created_by=CreatedBy(record["created_by"]),
            created_at=record["created_at"],
            updated_at=record["updated_at"],
        )


@strawberry.type
class PageInfo:
    has_next_page: bool
    end_cursor: str | None


@strawberry.type
class PlanEdge:
    cursor: str
    node: Plan


@strawberry.type
class PlanConnection:
    edges: list[PlanEdge]
    page_info: PageInfo
    total_count: int

    @strawberry.field
    def nodes(self) -> list[Plan]:
        return [edge.node for edge in self.edges]

    @classmethod
    def from_page(cls, page: Page[dict[str, Any]]) -> PlanConnection:
        edges = [
            PlanEdge(cursor=cursor, node=Plan.from_record(item))
            for item, cursor in zip(page.items, page.cursors, strict=True)
        ]
        return cls(
            edges=edges,
            page_info=PageInfo(
                has_next_page=page.has_next_page,
                end_cursor=page.cursors[-1] if page.cursors else None,
            ),
            total_count=page.total_count,
        )


@strawberry.input
class PlanWhere:
    status_in: list[PlanStatus] | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    name_contains: str | None = None


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
