"""Cypher round trips counted per request (the `cypherRoundTrips` response extension)."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field


@dataclass
class RoundTrips:
    """Cypher round trips made while answering one request."""

    count: int = 0
    queries: list[str] = field(default_factory=list)

    def add(self, query: str) -> None:
        self.count += 1
        self.queries.append(query.strip().splitlines()[0][:80] if query.strip() else "")


_round_trips: ContextVar[RoundTrips | None] = ContextVar("round_trips", default=None)


def start_counting() -> RoundTrips:
    """Begin a fresh round-trip count for the current request (task-local)."""
    counter = RoundTrips()
    _round_trips.set(counter)
    return counter


def count_query(query: str) -> None:
    counter = _round_trips.get()
    if counter is not None:
        counter.add(query)
