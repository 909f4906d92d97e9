"""The API process's background work on stored data: the access log writer, the expiry sweeper,
the idempotency key purge and the orphaned-object reconciliation, started and stopped by the
app's lifespan (app/web/app.py). They use the graph with the long bound of background jobs: heavy
work there is no outage."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

from app.artifacts.orphans import OrphanReconciler
from app.artifacts.store import open_store
from app.domain.kernel import idempotency
from app.domain.memory import AccessLogWriter, MemorySweeper, access_log
from app.runtime.services import Services, connected
from app.settings import Settings


@dataclass
class MemoryBackground:
    sweeper: MemorySweeper
    writer: AccessLogWriter | None
    orphans: OrphanReconciler | None = None
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    writer_task: asyncio.Task[None] | None = None

    def details(self) -> dict[str, Any]:
        log = self.writer.details() if self.writer else "disabled"
        details = {"memory_sweeper": self.sweeper.details(), "access_log": log}
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
    )
    orphans = services.artifacts.orphans
    background = MemoryBackground(sweeper=sweeper, writer=writer, orphans=orphans)
    background.tasks.append(asyncio.create_task(sweeper.run_forever(), name="memory-sweeper"))
    purge = idempotency.purge_forever(graph, interval_s=settings.memory_sweep_interval_s)
    background.tasks.append(asyncio.create_task(purge, name="idempotency-key-purge"))
    reconcile = orphans.run_forever(graph, services.artifacts)
    background.tasks.append(asyncio.create_task(reconcile, name="orphan-reconciliation"))
    if writer is not None:
        background.writer_task = asyncio.create_task(writer.run(), name="access-log-writer")
    return background


async def run_sweep(settings: Settings, *, client_id: str | None = None) -> dict[str, Any]:
    """One sweep outside the API process (`agentmem sweep`); its summary."""
    async with connected(settings) as graph:
        artifacts = open_store(settings)
        writer = AccessLogWriter(graph) if settings.access_log_enabled else None
        access_log.install(writer)
        try:
            sweeper = MemorySweeper(graph, artifacts, batch=settings.memory_sweep_batch)
            run = await sweeper.sweep(client_id)
        finally:
            if writer is not None:
                await writer.close()
            access_log.install(None)
            artifacts.close()
        return run.summary() | {"clients": len(run.per_client)}
