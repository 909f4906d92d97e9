"""Engagement and performance types (seed 000, 6); fields held to app/model by tests."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from app.api.types.base import NodeType, node_type, to_one
from app.model.enums import EngagementActor, EngagementKind, EngagementResult, MetricType, Platform


@node_type("EngagementEvent")
@strawberry.type(description="An action taken or observed, and its outcome (seed 000, 6.2).")
class EngagementEvent(NodeType):
    id: strawberry.ID
    platform: Platform
    event_kind: EngagementKind
    external_ref: str | None
    actor: EngagementActor
    linked_asset_id: strawberry.ID | None
    variant_id: strawberry.ID | None
    publish_run_id: strawberry.ID | None
    thread_id: strawberry.ID | None
    payload: JSON | None
    result: EngagementResult
    failure_reason: str | None
    created_at: datetime
    updated_at: datetime

    asset = to_one("Asset", "The asset it concerns (CONCERNS).")
    variant = to_one("AssetVariant", "The variant it concerns (CONCERNS).")
    publish_run = to_one("PublishRun", "The publish run it concerns (CONCERNS).")
    thread = to_one("ConversationThread", "The thread it concerns (CONCERNS).")


@node_type("PerformanceMetric")
@strawberry.type(description="A metric value for a time window (seed 000, 6.3).")
class PerformanceMetric(NodeType):
    id: strawberry.ID
    platform: Platform
    asset_id: strawberry.ID | None
    variant_id: strawberry.ID | None
    plan_id: strawberry.ID | None
    metric_type: MetricType
    value: float
    window_start: datetime
    window_end: datetime
    created_at: datetime
    updated_at: datetime

    asset = to_one("Asset", "The asset measured (MEASURES).")
    variant = to_one("AssetVariant", "The variant measured (MEASURES).")
    plan = to_one("Plan", "The plan measured (MEASURES).")
