"""Purges the runtime adds to each run of the memory sweeper (app/domain/expiry: expired
sessions and threads, capped threads trimmed). A step takes the client (None: every client)
and says what it purged per client and kind, and how many stored objects it removed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from app.domain.memory import access_log
from app.graph.change_feed import BOOKKEEPING, ChangedBy
from app.graph.executor import GraphExecutor

Counts = dict[str, dict[str, int]]  # client -> kind -> purged
# A step stops after this many batches in one run (the next run goes on).
MAX_BATCHES = 1_000


@dataclass
class StepResult:
    per_client: Counts = field(default_factory=dict)
    objects: int = 0


SweepStep = Callable[[str | None], Awaitable[StepResult]]


async def purge_in_batches(
    graph: GraphExecutor,
    query: str,
    params: Mapping[str, Any],
    *,
    kind: str,
    batch: int,
    changed: ChangedBy | None = None,
) -> StepResult:
    """Runs `query` (one transaction per batch of at most `$batch`, rows of `client_id` and
    `purged`) until a batch is not full; what it purged per client, as `kind`. `changed`:
    what a batch changed, for the change feed; None: it purges bookkeeping no app follows
    (access log entries, the feed's own)."""
    result = StepResult()
    for _ in range(MAX_BATCHES):
        batch_params = {**params, "batch": batch}
        rows = await graph.write(query, batch_params, changed=changed or BOOKKEEPING)
        for row in rows:
            counts = result.per_client.setdefault(row["client_id"], {})
            counts[kind] = counts.get(kind, 0) + int(row["purged"])
        if sum(int(row["purged"]) for row in rows) < batch:
            break
    return result


def merge_counts(into: Counts, result: StepResult) -> None:
    """Adds a step's counts to the run's, each written to its client's access log."""
    for client, kinds in result.per_client.items():
        mine = into.setdefault(client, {})
        for kind, count in kinds.items():
            if count:
                mine[kind] = mine.get(kind, 0) + count
                detail = f"{kind.replace('_', ' ')} purged"
                access_log.record_system(client, "expire", detail=detail, count=count)


def totals(counts: Counts) -> dict[str, int]:
    """Every client's counts added up, per kind."""
    out: dict[str, int] = {}
    for kinds in counts.values():
        for kind, count in kinds.items():
            out[kind] = out.get(kind, 0) + count
    return out


DAY_S = 86_400.0


@dataclass
class PastRetention:
    """A sweep step: the nodes `query` finds older than `$before` (the retention ago) deleted,
    one client's or every client's, in batches; a retention of 0 days keeps them all. Bookkeeping
    (the access log, the change feed): nothing for the feed to record."""

    graph: GraphExecutor
    retention_days: float
    batch: int = 500
    query: ClassVar[str]
    kind: ClassVar[str]  # the step's count in the sweep's `expired` counts

    async def __call__(self, client_id: str | None, now: datetime | None = None) -> StepResult:
        if self.retention_days <= 0:
            return StepResult()
        before = (now or datetime.now(UTC)) - timedelta(seconds=self.retention_days * DAY_S)
        params = {"before": before, "client_id": client_id}
        return await purge_in_batches(
            self.graph, self.query, params, kind=self.kind, batch=self.batch
        )
