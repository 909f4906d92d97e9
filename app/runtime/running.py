"""What a serving process runs (the API's lifespan, `agentmem mcp` on stdio): the services, and
this process's background work on them (the access log writer, the sweeper, the scheduled jobs,
and the embedding worker unless it runs as its own process)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from app.runtime.background import MemoryBackground, start_memory_background
from app.runtime.services import Services, close_services, open_services
from app.settings import Settings


@asynccontextmanager
async def running_services(settings: Settings) -> AsyncIterator[tuple[Services, MemoryBackground]]:
    services = await open_services(settings)
    background = start_memory_background(services)
    if settings.embedding_worker_in_process:
        services.indexer.start()
    try:
        yield services, background
    finally:
        await background.stop()
        await close_services(services)
