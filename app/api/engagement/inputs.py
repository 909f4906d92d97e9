"""Inputs of the engagement and performance metric mutations; the domain validates each value."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import strawberry
from strawberry.scalars import JSON
from strawberry.types.arguments import InputContext

from app.model.enums import EngagementActor, EngagementKind, EngagementResult, MetricType, Platform


@strawberry.input(
    description="An action taken or observed (seed 000, 6.2). Each linked id is optional and "
    "must be the caller's (NOT_FOUND otherwise). A FAIL result needs a failureReason. With an "
    "externalRef the event is recorded once per client."
)
class RecordEngagementEventInput:
    platform: Platform
    event_kind: EngagementKind
    actor: EngagementActor
    result: EngagementResult
    failure_reason: str | None = strawberry.field(
        default=None, description="A short classification (1-200 characters), for FAIL/PARTIAL."
    )
    external_ref: str | None = strawberry.field(
        default=None, description="Platform ids or URLs, at most 500 characters."
    )
    linked_asset_id: strawberry.ID | None = None
    variant_id: strawberry.ID | None = None
    publish_run_id: strawberry.ID | None = None
    thread_id: strawberry.ID | None = None
    payload: JSON | None = strawberry.field(default=None, description="A JSON object.")


@strawberry.input(
    description="A metric value for a time window (seed 000, 6.3); at least one of assetId, "
    "variantId and planId, each the caller's."
)
class PerformanceMetricInput:
    metric_id: strawberry.ID = strawberry.field(
        description="A UUID chosen by the caller: the metric's id. Sending it again updates the "
        "value and window in place."
    )
    platform: Platform
    metric_type: MetricType
    value: float = strawberry.field(description="A finite number >= 0.")
    window_start: datetime
    window_end: datetime = strawberry.field(description="After windowStart.")
    asset_id: strawberry.ID | None = None
    variant_id: strawberry.ID | None = None
    plan_id: strawberry.ID | None = None


METRIC_FIELDS = (
    "metric_id",
    "platform",
    "metric_type",
    "value",
    "window_start",
    "window_end",
    "asset_id",
    "variant_id",
    "plan_id",
)


def metric_fields(metric: PerformanceMetricInput) -> dict[str, Any]:
    """A plain dict of one input (attribute reads: dataclasses.asdict is slow for thousands)."""
    return {name: getattr(metric, name) for name in METRIC_FIELDS}


def metric_from_input(cls: type, value: Mapping[str, Any], context: InputContext) -> Any:
    """Builds one PerformanceMetricInput from the value graphql-core already coerced (ids as
    strings, enum members, floats, aware datetimes; every field's type checked).

    Strawberry's own conversion walks each field through its generic converter, which cost about
    three times this for a request of thousands of metrics; the values are the same.
    """
    convert = context.config.name_converter.from_field
    names = _GRAPHQL_NAMES.get(id(context.config))
    if names is None:
        fields = cls.__strawberry_definition__.fields  # type: ignore[attr-defined]
        names = _GRAPHQL_NAMES[id(context.config)] = {f.python_name: convert(f) for f in fields}
    return cls(**{python: value.get(graphql) for python, graphql in names.items()})


_GRAPHQL_NAMES: dict[int, dict[str, str]] = {}
PerformanceMetricInput.__strawberry_definition__.from_input = metric_from_input  # type: ignore[attr-defined]
