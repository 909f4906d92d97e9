"""Access log retention (seed 004's memory_access_logs, kept for a while): entries older than
Settings.access_log_retention_days are deleted by a step of the memory sweeper
(sweep_steps.py), in batches; 0 keeps every entry."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from app.domain.memory.sweep_steps import StepResult
from app.graph.executor import GraphExecutor

DAY_S = 86_400.0
KIND = "access_log_entries"  # the step's count in the sweep's `expired` counts
MAX_BATCHES = 1_000
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
        result = StepResult()
        if self.retention_days <= 0:
            return result
        params: dict[str, Any] = {
            "before": (now or datetime.now(UTC)) - timedelta(seconds=self.retention_days * DAY_S),
            "client_id": client_id,
            "batch": self.batch,
        }
        for _ in range(MAX_BATCHES):
            rows = await self.graph.write(PURGE_OLD_ENTRIES, params)
            for row in rows:
                counts = result.per_client.setdefault(row["client_id"], {})
                counts[KIND] = counts.get(KIND, 0) + int(row["purged"])
            if sum(int(row["purged"]) for row in rows) < self.batch:
                break
        return result
