"""Purges the runtime adds to each run of the memory sweeper (app/domain/expiry: expired
sessions and threads, capped threads trimmed). A step takes the client (None: every client)
and says what it purged per client and kind, and how many stored objects it removed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.domain.memory import access_log
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
    graph: GraphExecutor, query: str, params: Mapping[str, Any], *, kind: str, batch: int
) -> StepResult:
    """Runs `query` (one transaction per batch of at most `$batch`, rows of `client_id` and
    `purged`) until a batch is not full; what it purged per client, as `kind`."""
    result = StepResult()
    for _ in range(MAX_BATCHES):
        rows = await graph.write(query, {**params, "batch": batch})
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
