"""Purges the runtime adds to each run of the memory sweeper (app/domain/expiry: expired
sessions and threads, capped threads trimmed). A step takes the client (None: every client)
and says what it purged per client and kind, and how many stored objects it removed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from app.domain.memory import access_log

Counts = dict[str, dict[str, int]]  # client -> kind -> purged


@dataclass
class StepResult:
    per_client: Counts = field(default_factory=dict)
    objects: int = 0


SweepStep = Callable[[str | None], Awaitable[StepResult]]


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
