"""What the engagement mutations and the rollup query return besides the read types."""

from __future__ import annotations

from datetime import datetime

import strawberry

from app.api.types.engagement import EngagementEvent
from app.model.enums import MetricType


@strawberry.type(description="The recorded event, or the stored one with the same externalRef.")
class RecordEngagementEventPayload:
    event: EngagementEvent
    deduplicated: bool = strawberry.field(
        description="True when an event with this externalRef already existed and is returned."
    )


@strawberry.type(
    description="What a bulk ingest wrote: every metric was valid (else nothing is written)."
)
class IngestPerformanceMetricsPayload:
    received: int
    created: int = strawberry.field(description="Metrics whose metricId was new.")
    updated: int = strawberry.field(description="Metrics whose value and window were replaced.")
    batches: int = strawberry.field(description="Transactions written (one UNWIND each).")


@strawberry.type(description="One group of a rollup: a key, a bucket and a metric type.")
class MetricRollupRow:
    key: str = strawberry.field(description="The asset, variant or plan id, or the platform.")
    label: str | None = strawberry.field(
        description="The asset title, variant description, plan name or platform."
    )
    bucket_start: datetime | None = strawberry.field(
        description="Start of the day or week (UTC, weeks start on Monday); null for NONE."
    )
    metric_type: MetricType
    sum: float
    avg: float
    max: float
    count: int
