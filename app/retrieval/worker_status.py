"""What the embedding worker shows of itself: /readyz details and /metrics lines."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any


@dataclass
class WorkerStatus:
    running: bool = False
    indexed_total: int = 0
    # Records that could not be indexed (marked with index_error until their next update).
    failed_total: int = 0
    oldest_pending: datetime | None = None
    last_error: str | None = None
    started_at: datetime | None = None

    def lag_seconds(self, now: datetime | None = None) -> float:
        if self.oldest_pending is None:
            return 0.0
        return max(0.0, ((now or datetime.now(UTC)) - self.oldest_pending).total_seconds())

    def details(self) -> dict[str, Any]:
        return {
            "running": self.running,
            "indexed_total": self.indexed_total,
            "failed_total": self.failed_total,
            "oldest_pending": self.oldest_pending.isoformat() if self.oldest_pending else None,
            "lag_seconds": round(self.lag_seconds(), 3),
            "last_error": self.last_error,
        }
