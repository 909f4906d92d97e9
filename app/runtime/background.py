"""The API process's background work on stored data: the access log writer, the expiry sweeper,
the idempotency key purge and the orphaned-object reconciliation, started and stopped by the
app's lifespan (app/web/app.py). They use the graph with the long bound of background jobs: heavy
work there is no outage.

The sweeper, the purge and the client snapshots (app/runtime/client_snapshots.py) work on the
whole graph: they run once per interval across every API process (app/runtime/scheduled.py).
The reconciliation stays per process: its queue holds the objects that this process's own
failed requests left behind, which no other process knows of."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from app.artifacts.orphans import OrphanReconciler
from app.artifacts.store import ArtifactStore, open_store
from app.domain.agents.session_state_sweep import SessionStateExpiry
from app.domain.changes import ChangeFeedRetention
from app.domain.expiry import ExpirySweep
from app.domain.kernel import idempotency
from app.domain.memory import AccessLogWriter, Capacity, Eviction, MemorySweeper, access_log
from app.domain.memory.access_log_retention import AccessLogRetention
from app.domain.memory.sweep_steps import SweepStep
from app.graph.executor import GraphExecutor
from app.graph.leases import Lease, new_holder
from app.runtime.client_snapshots import SNAPSHOT_JOB, snapshot_run
from app.runtime.scheduled import ScheduledJob
from app.runtime.services import Services, connected
from app.settings import Settings

# The lease names of the scheduled jobs (one Lease node each in the graph).
SWEEPER_JOB = "memory-sweeper"
PURGE_JOB = "idempotency-key-purge"


@dataclass
class MemoryBackground:
    sweeper: MemorySweeper
    writer: AccessLogWriter | None
    orphans: OrphanReconciler | None = None
    jobs: list[ScheduledJob] = field(default_factory=list)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    writer_task: asyncio.Task[None] | None = None

    def details(self) -> dict[str, Any]:
        log = self.writer.details() if self.writer else "disabled"
        schedule = {job.lease.name: job.details() for job in self.jobs}
        details = {
            "memory_sweeper": self.sweeper.details(),
            "access_log": log,
            "schedule": schedule,
        }
        if self.orphans is not None:
            details["orphaned_objects"] = self.orphans.totals()
        return details

    async def stop(self) -> None:
        """Cancels the other jobs; the access log writer ends its flush and writes what is left
        (bounded: AccessLogWriter.close), before the driver closes."""
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self.orphans is not None:
            self.orphans.abandon()
        if self.writer is not None:
            await self.writer.close(self.writer_task)
            if access_log.installed() is self.writer:
                access_log.install(None)


def start_memory_background(services: Services) -> MemoryBackground:
    settings = services.settings
    graph = services.graph.background()
    writer = None
    if settings.access_log_enabled:
        writer = AccessLogWriter(
            graph, batch=settings.access_log_batch, flush_ms=settings.access_log_flush_ms
        )
    access_log.install(writer)
    sweeper = MemorySweeper(
        graph,
        services.artifacts,
        interval_s=settings.memory_sweep_interval_s,
        batch=settings.memory_sweep_batch,
        transcript_retention_days=settings.transcript_retention_days,
        steps=sweep_steps(graph, services.artifacts, settings),
    )
    orphans = services.artifacts.orphans
    background = MemoryBackground(sweeper=sweeper, writer=writer, orphans=orphans)
    background.jobs = scheduled_jobs(graph, settings, sweeper, services.artifacts)
    for job in background.jobs:
        task = asyncio.create_task(job.run_forever(), name=job.lease.name)
        background.tasks.append(task)
    reconcile = orphans.run_forever(graph, services.artifacts)
    background.tasks.append(asyncio.create_task(reconcile, name="orphan-reconciliation"))
    if writer is not None:
        background.writer_task = asyncio.create_task(writer.run(), name="access-log-writer")
    return background


def sweep_steps(
    graph: GraphExecutor, artifacts: ArtifactStore, settings: Settings
) -> tuple[SweepStep, ...]:
    """What each sweep runs after the records' purge: expired sessions and threads, then access
    log entries past their retention, then records over their client's capacity, then expired
    agent session states, then change feed entries past their retention."""
    retention = AccessLogRetention(
        graph, settings.access_log_retention_days, batch=settings.memory_sweep_batch
    )
    capacity = Capacity.of(settings)
    eviction = Eviction(graph, artifacts, capacity, batch=settings.memory_sweep_batch)
    states = SessionStateExpiry(graph, batch=settings.memory_sweep_batch)
    changes = ChangeFeedRetention(
        graph, settings.change_retention_days, batch=settings.memory_sweep_batch
    )
    return (ExpirySweep(graph, artifacts), retention, eviction, states, changes)


def scheduled_jobs(
    graph: GraphExecutor, settings: Settings, sweeper: MemorySweeper, artifacts: ArtifactStore
) -> list[ScheduledJob]:
    """The sweeper and the idempotency key purge, on the sweeper's interval; client snapshots
    on theirs, unless no period is configured."""
    holder, interval = new_holder(), settings.memory_sweep_interval_s

    def job(
        name: str, run: Callable[[], Awaitable[object]], interval_s: float = interval
    ) -> ScheduledJob:
        lease = Lease(graph, name=name, holder=holder, ttl_s=settings.job_lease_s)
        return ScheduledJob(lease=lease, interval_s=interval_s, run=run)

    jobs = [
        job(SWEEPER_JOB, sweeper.sweep),
        job(PURGE_JOB, lambda: idempotency.purge_expired(graph)),
    ]
    if settings.client_snapshot_periods:
        run = snapshot_run(graph, artifacts, settings)
        jobs.append(job(SNAPSHOT_JOB, run, settings.client_snapshot_interval_s))
    return jobs


async def run_sweep(settings: Settings, *, client_id: str | None = None) -> dict[str, Any]:
    """One sweep outside the API process (`agentmem sweep`); its summary."""
    async with connected(settings) as graph:
        artifacts = open_store(settings)
        writer = AccessLogWriter(graph) if settings.access_log_enabled else None
        access_log.install(writer)
        try:
            sweeper = MemorySweeper(
                graph,
                artifacts,
                batch=settings.memory_sweep_batch,
                transcript_retention_days=settings.transcript_retention_days,
                steps=sweep_steps(graph, artifacts, settings),
            )
            run = await sweeper.sweep(client_id)
        finally:
            if writer is not None:
                await writer.close()
            access_log.install(None)
            artifacts.close()
        return run.summary() | {"clients": len(run.per_client)}
