"""Priority eviction (seed 004: "priority helps determine which memories to keep when space is
limited"): a client keeps at most `memory_capacity` live (not forgotten) memory records, and at
most the configured number under each namespace prefix; the sweeper purges the excess, lowest
priority first and, among equals, oldest (created_at) first, as a hard forget does (versions,
artifacts, then the objects nothing points at any more). Each eviction is counted (the sweep's
`evicted`, agentmem_memory_sweeper_evicted_total), logged, and written to the client's access
log by the sweep (operation "expire", "N evicted records purged").

Enforced by the sweeper (every memorySweepIntervalS, and sweepExpiredMemories) and after an
import, not on every write: a count per write would cost every remember a scan of the client's
records, so a client may hold more than its capacity until the next sweep.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import ValidationFailed
from app.domain.memory.content import purge_record, remove_unreferenced
from app.domain.memory.rules import check_namespace_prefix
from app.domain.memory.sweep_steps import StepResult
from app.graph.change_feed import Changed
from app.graph.executor import GraphExecutor
from app.graph.fragments import live
from app.model.enums import ChangeAction
from app.settings import Settings

log = logging.getLogger("app.memory_eviction")
EVICTED = "evicted_records"  # the step's count in the sweep's `expired` counts

# Live records ($now) of the scope: the client's, or those under the namespace prefix.
IN_SCOPE = (
    f"{live('r')} AND ($prefix IS NULL OR r.namespace = $prefix "
    "OR r.namespace STARTS WITH $prefix + '/')"
)
OVER_CAPACITY = f"""
MATCH (r:MemoryRecord)
WHERE ($client_id IS NULL OR r.client_id = $client_id) AND {IN_SCOPE}
WITH r.client_id AS client_id, count(*) AS held
WHERE held > $capacity
RETURN client_id
"""
# The excess is counted again in the purge's own transaction, so that an eviction running
# beside another (the sweeper's and an import's) never takes more than the excess it sees.
EVICT = f"""
CALL () {{
  MATCH (r:MemoryRecord {{client_id: $client_id}}) WHERE {IN_SCOPE}
  RETURN count(r) - $capacity AS excess
}}
MATCH (r:MemoryRecord {{client_id: $client_id}})
WHERE excess > 0 AND {IN_SCOPE}
WITH r, excess ORDER BY r.priority ASC, r.created_at ASC, r.id ASC LIMIT $batch
WITH collect(r) AS lowest, excess
UNWIND lowest[..excess] AS r
{purge_record("r.id AS id,")}
RETURN count(*) AS evicted, collect(id) AS ids, collect(uris) AS uris
"""


@dataclass(frozen=True)
class Capacity:
    """The limits: per client (None: none) and per namespace prefix within each client."""

    per_client: int | None = None
    per_namespace: tuple[tuple[str, int], ...] = ()

    @classmethod
    def of(cls, settings: Settings) -> Capacity:
        prefixes = []
        for prefix, capacity in sorted(settings.memory_namespace_capacity.items()):
            try:
                checked = check_namespace_prefix(prefix)
            except ValidationFailed as error:
                raise ValueError(f"AGENTMEM_MEMORY_NAMESPACE_CAPACITY: {error.message}") from None
            if checked is None:
                raise ValueError("AGENTMEM_MEMORY_NAMESPACE_CAPACITY: a prefix must not be empty")
            prefixes.append((checked, capacity))
        return cls(settings.memory_capacity, tuple(prefixes))

    def scopes(self) -> list[tuple[str | None, int]]:
        """(namespace prefix or None for the whole client, capacity), the narrowest first: a
        namespace's own excess goes before the client's."""
        whole = [] if self.per_client is None else [(None, self.per_client)]
        return [*self.per_namespace, *whole]


@dataclass
class Eviction:
    """The sweep step (sweep_steps.py) that evicts; `total` for the metrics."""

    graph: GraphExecutor
    artifacts: ArtifactStore
    capacity: Capacity
    batch: int = 500
    total: int = 0

    async def __call__(self, client_id: str | None) -> StepResult:
        result = await evict_over_capacity(
            self.graph, self.artifacts, self.capacity, client_id=client_id, batch=self.batch
        )
        self.total += sum(counts[EVICTED] for counts in result.per_client.values())
        return result


async def evict_over_capacity(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    capacity: Capacity,
    *,
    client_id: str | None = None,
    batch: int = 500,
) -> StepResult:
    """Evict every client's (or one client's) excess: per client {EVICTED: records}."""
    result = StepResult()
    for prefix, limit in capacity.scopes():
        scope = {"prefix": prefix, "capacity": limit, "now": datetime.now(UTC)}
        for row in await graph.read(OVER_CAPACITY, scope | {"client_id": client_id}):
            over = row["client_id"]
            count = await _evict(
                graph, artifacts, scope | {"client_id": over, "batch": batch}, result
            )
            counts = result.per_client.setdefault(over, {})
            counts[EVICTED] = counts.get(EVICTED, 0) + count
            where = "" if prefix is None else f" under {prefix}"
            log.info("evicted %d memory records of client %s over %d%s", count, over, limit, where)
    return result


async def _evict(
    graph: GraphExecutor, artifacts: ArtifactStore, params: dict[str, Any], result: StepResult
) -> int:
    """Purge the scope's excess, a batch per transaction; the number purged."""
    done = 0

    def evicted(rows: list[dict[str, Any]]) -> list[Changed]:
        client_id, deleted = params["client_id"], ChangeAction.DELETED
        return [Changed(client_id, "MemoryRecord", r, deleted) for row in rows for r in row["ids"]]

    while True:
        now = datetime.now(UTC)
        row = (await graph.write(EVICT, params | {"now": now}, changed=evicted))[0]
        purged = int(row["evicted"])
        uris = [uri for group in row["uris"] for uri in group]
        result.objects += await remove_unreferenced(graph, artifacts, uris)
        done += purged
        if purged < params["batch"]:
            return done
