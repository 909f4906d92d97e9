"""Access log retention (seed 004's memory_access_logs, kept for a while): entries older than
Settings.access_log_retention_days are deleted by a step of the memory sweeper
(sweep_steps.py), in batches; 0 keeps every entry."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from app.domain.memory.sweep_steps import StepResult, purge_in_batches
from app.graph.executor import GraphExecutor

DAY_S = 86_400.0
KIND = "access_log_entries"  # the step's count in the sweep's `expired` counts
# Seeks index access_log_created (migration 0034).
PURGE_OLD_ENTRIES = """
MATCH (e:AccessLogEntry)
WHERE e.created_at < $before AND ($client_id IS NULL OR e.client_id = $client_id)
WITH e LIMIT $batch
WITH e, e.client_id AS client_id
DELETE e
RETURN client_id, count(*) AS purged
"""


@dataclass
class AccessLogRetention:
    """A sweep step: one client's entries past their retention deleted, or every client's."""

    graph: GraphExecutor
    retention_days: float
    batch: int = 500

    async def __call__(self, client_id: str | None, now: datetime | None = None) -> StepResult:
        if self.retention_days <= 0:
            return StepResult()
        before = (now or datetime.now(UTC)) - timedelta(seconds=self.retention_days * DAY_S)
        params = {"before": before, "client_id": client_id}
        return await purge_in_batches(
            self.graph, PURGE_OLD_ENTRIES, params, kind=KIND, batch=self.batch
        )
