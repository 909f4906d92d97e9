"""Engagement and performance metric mutations: thin resolvers over app/domain."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.engagement import inputs as i
from app.api.engagement import outputs as o
from app.api.record_mutations import creates
from app.api.resolve import run
from app.domain import engagement
from app.domain.engagement import ingest_metrics


@strawberry.type
class EngagementMutations:
    record_engagement_event = creates(
        engagement.record_event,
        o.RecordEngagementEventPayload,
        i.RecordEngagementEventInput,
        "Record an engagement event with CONCERNS links to the records it is about; "
        "an externalRef already recorded returns that event with deduplicated: true.",
        keyed=False,
    )

    @strawberry.mutation(
        description="Ingest metrics in bulk: all are validated first (any invalid one refuses "
        "the whole request with VALIDATION listing each bad index in extensions.invalid), then "
        "written in batches of one UNWIND transaction each. Idempotent per metricId."
    )
    async def ingest_performance_metrics(
        self, info: Info, metrics: list[i.PerformanceMetricInput]
    ) -> o.IngestPerformanceMetricsPayload:
        settings = info.context.services.settings
        result = await run(
            info,
            ingest_metrics,
            metrics=[i.metric_fields(metric) for metric in metrics],
            batch_size=settings.metric_batch_size,
            limit=settings.metric_ingest_max,
        )
        return o.IngestPerformanceMetricsPayload(
            received=result.received,
            created=result.created,
            updated=result.updated,
            batches=result.batches,
        )
