"""The expiry sweeper: purges memory records whose expires_at has passed, in batches, then
session transcripts past their retention (transcripts.py).

Readers already hide expired records (they compare expires_at with now), so the sweeper only
reclaims space: the record, its versions and artifacts, then the objects in storage nothing
points at any more. A record without expires_at never matches (a null comparison is not
true). Each run is kept in memory (the last RUNS_KEPT) for /readyz and the memorySweeps query,
and each client's purge is written to that client's access log (operation "expire").
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.memory import access_log
from app.domain.memory.content import purge_record, remove_unreferenced
from app.domain.memory.sweep_steps import MAX_BATCHES, SweepStep, merge_counts, totals
from app.domain.memory.transcripts import purge_old_transcripts
from app.graph.change_feed import Changed
from app.graph.executor import GraphExecutor
from app.model.enums import ChangeAction
from app.settings import Settings

log = logging.getLogger("app.memory_sweeper")

PURGE_EXPIRED = f"""
MATCH (r:MemoryRecord)
WHERE r.expires_at <= $now AND ($client_id IS NULL OR r.client_id = $client_id)
WITH r LIMIT $batch
{purge_record("r.client_id AS client_id, r.id AS id,")}
RETURN client_id, count(*) AS purged, sum(size(versions)) AS versions, collect(uris) AS uris,
       collect(id) AS ids
"""
RUNS_KEPT = 20


def expired(rows: list[dict[str, Any]]) -> list[Changed]:
    deleted = ChangeAction.DELETED
    return [
        Changed(row["client_id"], "MemoryRecord", record_id, deleted)
        for row in rows
        for record_id in row["ids"]
    ]


@dataclass
class SweepRun:
    started_at: datetime
    client_id: str | None = None  # None: every client (the background run)
    finished_at: datetime | None = None
    purged: int = 0
    versions: int = 0
    objects: int = 0
    batches: int = 0
    per_client: dict[str, int] = field(default_factory=dict)
    transcripts_per_client: dict[str, int] = field(default_factory=dict)  # past retention
    expired_per_client: dict[str, dict[str, int]] = field(default_factory=dict)  # the steps'
    error: str | None = None

    def summary(self) -> dict[str, Any]:
        return {
            "started_at": self.started_at.isoformat(),
            "finished_at": self.finished_at.isoformat() if self.finished_at else None,
            "scope": self.client_id or "all",
            "purged": self.purged,
            "versions": self.versions,
            "objects": self.objects,
            "batches": self.batches,
            "transcripts": sum(self.transcripts_per_client.values()),
            "expired": totals(self.expired_per_client),
            "error": self.error,
        }


@dataclass
class MemorySweeper:
    graph: GraphExecutor
    artifacts: ArtifactStore
    interval_s: float = 60.0
    batch: int = 500
    transcript_retention_days: float = Settings.model_fields["transcript_retention_days"].default
    steps: tuple[SweepStep, ...] = ()  # run after the records' purge (sweep_steps.py)
    runs: deque[SweepRun] = field(default_factory=lambda: deque(maxlen=RUNS_KEPT))
    total_runs: int = 0  # `runs` keeps the last RUNS_KEPT only
    total_purged: int = 0

    async def sweep(self, client_id: str | None = None) -> SweepRun:
        """One run: batches until none is full (or MAX_BATCHES); one client's records or all."""
        run = SweepRun(started_at=datetime.now(UTC), client_id=client_id)
        self.runs.append(run)
        try:
            while run.batches < MAX_BATCHES:
                params = {"now": datetime.now(UTC), "client_id": client_id, "batch": self.batch}
                rows = await self.graph.write(PURGE_EXPIRED, params, changed=expired)
                run.batches += 1
                purged = await self._account(run, rows)
                if purged < self.batch:
                    break
            await self._purge_transcripts(run, client_id)
            for step in self.steps:
                result = await step(client_id)
                merge_counts(run.expired_per_client, result)
                run.objects += result.objects
        except Exception as error:  # noqa: BLE001 - a failed run is reported, the next retries
            run.error = f"{type(error).__name__}: {error}"[:300]
            log.exception("memory sweep failed")
        run.finished_at = datetime.now(UTC)
        self.total_runs += 1
        self.total_purged += run.purged
        return run

    async def _account(self, run: SweepRun, rows: list[dict[str, Any]]) -> int:
        purged = 0
        uris: list[str] = []
        for row in rows:
            count = int(row["purged"])
            purged += count
            run.versions += int(row["versions"])
            run.per_client[row["client_id"]] = run.per_client.get(row["client_id"], 0) + count
            uris += [uri for group in row["uris"] for uri in group]
            access_log.record_system(
                row["client_id"], "expire", detail="expired records purged", count=count
            )
        run.purged += purged
        run.objects += await remove_unreferenced(self.graph, self.artifacts, uris)
        return purged

    async def _purge_transcripts(self, run: SweepRun, client_id: str | None) -> None:
        """Session transcripts past their retention (app/domain/memory/transcripts.py)."""
        for _ in range(MAX_BATCHES):
            found = await purge_old_transcripts(
                self.graph,
                retention_days=self.transcript_retention_days,
                client_id=client_id,
                batch=self.batch,
            )
            for client, count in found.per_client.items():
                counts = run.transcripts_per_client
                counts[client] = counts.get(client, 0) + count
                access_log.record_system(client, "expire", detail="transcripts purged", count=count)
            run.objects += await remove_unreferenced(self.graph, self.artifacts, found.uris)
            if found.purged < self.batch:
                return

    def runs_of(self, client_id: str) -> list[dict[str, Any]]:
        """The recorded runs, newest first, with only this client's counts."""
        out = []
        for run in reversed(self.runs):
            if run.client_id not in (None, client_id):
                continue
            own = {
                "purged": run.per_client.get(client_id, 0),
                "transcripts": run.transcripts_per_client.get(client_id, 0),
                "expired": run.expired_per_client.get(client_id, {}),
            }
            out.append(run.summary() | own)
        return out

    def details(self) -> dict[str, Any]:
        last = self.runs[-1].summary() if self.runs else None
        return {
            "interval_s": self.interval_s,
            "runs": len(self.runs),
            "total_purged": self.total_purged,
            "last_run": last,
            "last_counts": [run.purged for run in reversed(self.runs)][:5],
        }
