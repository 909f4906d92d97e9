"""Engagement events and performance metrics (seed 000, 6): events, bulk metric ingest and
rollups."""

from app.domain.engagement.metric_rules import RollupBucket, RollupGroupBy, rollup_params
from app.domain.engagement.metrics import (
    INGEST_BATCH,
    ROLLUP_QUERIES,
    batch_params,
    ingest_metrics,
    metric_rollup,
)
from app.domain.engagement.repository import record_event

__all__ = [
    "INGEST_BATCH",
    "ROLLUP_QUERIES",
    "RollupBucket",
    "RollupGroupBy",
    "batch_params",
    "ingest_metrics",
    "metric_rollup",
    "record_event",
    "rollup_params",
]
