"""Metric rollups: one named Cypher query per grouping (cypher/queries/metric_rollup_*.cypher),
the same text analysts run in Neo4j Browser."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from app.api.context import Info
from app.api.engagement.outputs import MetricRollupRow
from app.api.outputs import from_fields
from app.api.resolve import run
from app.domain import engagement
from app.domain.engagement import RollupBucket, RollupGroupBy
from app.model.enums import MetricType

strawberry.enum(RollupGroupBy, description="What a metric rollup groups by.")
strawberry.enum(RollupBucket, description="Time buckets of a rollup (UTC days, Monday weeks).")


@strawberry.type
class EngagementQueries:
    @strawberry.field(
        description="Sum, avg, max and count of metric values per group, metric type and "
        "optional day or week bucket, for metrics whose windowStart is in [from, to). A plan "
        "counts the metrics of the plan, of assets made from its nodes (FROM_BLUEPRINT) and of "
        "their variants, each metric once; an asset counts its own and its variants' metrics. "
        "Rows are ordered by bucket, metric type, then sum descending; at most `first` (1-1000)."
    )
    async def metric_rollup(
        self,
        info: Info,
        group_by: RollupGroupBy,
        metric_types: list[MetricType] | None = None,
        from_: Annotated[datetime | None, strawberry.argument(name="from")] = None,
        to: datetime | None = None,
        bucket: RollupBucket = RollupBucket.NONE,
        first: int = 100,
    ) -> list[MetricRollupRow]:
        rows = await run(
            info,
            engagement.metric_rollup,
            group_by=group_by,
            metric_types=metric_types,
            start=from_,
            end=to,
            bucket=bucket,
            first=first,
        )
        return [
            from_fields(MetricRollupRow, row, metric_type=MetricType(row["metric_type"]))
            for row in rows
        ]
