"""The memory records' background work in the API process: the access log writer and the
expiry sweeper, started and stopped by the app's lifespan (app/http.py)."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

from app.api.context import Services
from app.artifacts.store import ArtifactStore, make_client
from app.domain import access_log, idempotency
from app.domain.access_log_writer import AccessLogWriter
from app.domain.memory_sweeper import MemorySweeper
from app.settings import Settings


@dataclass
class MemoryBackground:
    sweeper: MemorySweeper
    writer: AccessLogWriter | None
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def details(self) -> dict[str, Any]:
        log = self.writer.details() if self.writer else "disabled"
        return {"memory_sweeper": self.sweeper.details(), "access_log": log}

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self.writer is not None:
            # What the last requests logged is written before the driver closes.
            await self.writer.close()
            if access_log.installed() is self.writer:
                access_log.install(None)


def start_memory_background(services: Services) -> MemoryBackground:
    settings = services.settings
    writer = None
    if settings.access_log_enabled:
        writer = AccessLogWriter(
            services.graph, batch=settings.access_log_batch, flush_ms=settings.access_log_flush_ms
        )
    access_log.install(writer)
    sweeper = MemorySweeper(
        services.graph,
        services.artifacts,
        interval_s=settings.memory_sweep_interval_s,
        batch=settings.memory_sweep_batch,
    )
    background = MemoryBackground(sweeper=sweeper, writer=writer)
    background.tasks.append(asyncio.create_task(sweeper.run_forever(), name="memory-sweeper"))
    purge = idempotency.purge_forever(services.graph, interval_s=settings.memory_sweep_interval_s)
    background.tasks.append(asyncio.create_task(purge, name="idempotency-key-purge"))
    if writer is not None:
        background.tasks.append(asyncio.create_task(writer.run(), name="access-log-writer"))
    return background


async def run_sweep(settings: Settings, *, client_id: str | None = None) -> dict[str, Any]:
    """One sweep outside the API process (`agentmem sweep`); its summary."""
    from app.services.admin import connected

    async with connected(settings) as graph:
        artifacts = ArtifactStore(make_client(settings), bucket=settings.s3_bucket)
        writer = AccessLogWriter(graph) if settings.access_log_enabled else None
        access_log.install(writer)
        try:
            sweeper = MemorySweeper(graph, artifacts, batch=settings.memory_sweep_batch)
            run = await sweeper.sweep(client_id)
        finally:
            if writer is not None:
                await writer.flush()
            access_log.install(None)
        return run.summary() | {"clients": len(run.per_client)}
