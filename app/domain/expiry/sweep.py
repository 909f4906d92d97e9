"""The memory sweeper's expiry step (seed 002): expired sessions and threads purged, capped
threads trimmed to their last max_events events, each counted per client and kind.

Sessions and threads go at most `limit` per transaction, each with everything that belongs to
it; the stored objects nothing points at any more are removed once the transaction committed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.expiry.cypher import PURGE_SESSIONS, PURGE_THREADS, TRIM_CAPPED
from app.domain.expiry.objects import remove_thread_objects
from app.domain.memory.content import remove_unreferenced
from app.domain.memory.sweep_steps import MAX_BATCHES, StepResult
from app.graph.change_feed import Changed
from app.graph.executor import GraphExecutor
from app.model.enums import ChangeAction

Remover = Callable[[str, list[str]], Awaitable[int]]
Noted = Callable[[list[dict[str, Any]]], Iterator[Changed]]


def changes(label: str, action: ChangeAction, children: dict[str, str]) -> Noted:
    """What a pass changed, from its rows' `changed` ({id, column: ids}): each session or
    thread `action`, and the records of `children` (column -> label) deleted under it."""

    def noted(rows: list[dict[str, Any]]) -> Iterator[Changed]:
        for row in rows:
            client_id = row["client_id"]
            for node in row["changed"]:
                yield Changed(client_id, label, node["id"], action)
                for column, child in children.items():
                    for child_id in node[column]:
                        deleted = ChangeAction.DELETED
                        yield Changed(client_id, child, child_id, deleted, parent_id=node["id"])

    return noted


@dataclass(frozen=True)
class Pass:
    handled: str  # the count column that says how many nodes a batch handled
    query: str
    kinds: dict[str, str]  # the sweep's kind -> count column
    changed: Noted


PASSES = (
    Pass(
        "sessions",
        PURGE_SESSIONS,
        {"sessions": "sessions", "session_entries": "entries"},
        changes("MemorySession", ChangeAction.DELETED, {"entries": "MemoryRecord"}),
    ),
    Pass(
        "threads",
        PURGE_THREADS,
        {"threads": "threads", "thread_events": "events"},
        changes(
            "ConversationThread",
            ChangeAction.DELETED,
            {"events": "ConversationEvent", "summaries": "ThreadSummary"},
        ),
    ),
    Pass(
        "threads",
        TRIM_CAPPED,
        {"trimmed_events": "trimmed"},
        changes("ConversationThread", ChangeAction.UPDATED, {"events": "ConversationEvent"}),
    ),
)


@dataclass
class ExpirySweep:
    graph: GraphExecutor
    artifacts: ArtifactStore
    limit: int = 50  # sessions or threads per transaction

    async def __call__(self, client_id: str | None) -> StepResult:
        result = StepResult()
        for step in PASSES:
            remove = self._sessions_objects if step.handled == "sessions" else self._thread_objects
            for _ in range(MAX_BATCHES):
                params = {"client_id": client_id, "limit": self.limit, "now": datetime.now(UTC)}
                rows = await self.graph.write(step.query, params, changed=step.changed)
                await self._account(result, rows, step.kinds, remove)
                if sum(int(row[step.handled]) for row in rows) < self.limit:
                    break
        return result

    async def _account(
        self, result: StepResult, rows: list[Any], kinds: dict[str, str], remove: Remover
    ) -> None:
        for row in rows:
            counts = result.per_client.setdefault(row["client_id"], {})
            for kind, column in kinds.items():
                counts[kind] = counts.get(kind, 0) + int(row[column])
            uris = [uri for group in row["uris"] for uri in group if uri]
            result.objects += await remove(row["client_id"], uris)

    async def _sessions_objects(self, client_id: str, uris: list[str]) -> int:
        return await remove_unreferenced(self.graph, self.artifacts, uris)

    async def _thread_objects(self, client_id: str, uris: list[str]) -> int:
        return await remove_thread_objects(self.graph, self.artifacts, client_id, uris)
