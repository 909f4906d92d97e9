"""`agentmem reembed [--model M] [--client-id C] [--limit N]`: builds the memory index of a
model for the deployment (or one client) while search keeps the active one, with progress, and
switches search to it once complete. Stopped anywhere, the same command goes on from there."""

from __future__ import annotations

import sys
import time

from app.domain.kernel.errors import ValidationFailed
from app.graph.leases import new_holder
from app.model.enums import MemoryIndexStatus
from app.retrieval import memory_index as mi
from app.retrieval.claims import Claimant
from app.retrieval.index_build import Walk, walk_step
from app.retrieval.index_setup import INDEX_ONLINE_WAIT_S, model_index
from app.retrieval.model_source import canonical
from app.retrieval.vector_index import VectorIndex
from app.runtime import Services, close_services, open_services
from app.settings import Settings

# Walks over the scope before giving up on records the worker indexed without the new index
# meanwhile (a process that had not read the registry yet): each walk takes those it finds.
MAX_WALKS = 3
CLIENT = "MATCH (c:Client {id: $id}) RETURN c.id AS id"


async def build(
    settings: Settings, *, model: str | None, client_id: str | None, limit: int | None
) -> int:
    """0 once the index is active (or stopped at `limit`, resumable), 1 when records are still
    missing it, 2 for a model that cannot be loaded or a client that does not exist."""
    services = await open_services(settings)
    try:
        name = canonical(model or settings.embedding_model)
        try:
            await _check_client(services, client_id)
            index = await model_index(services.embedder.model(name))
        except ValidationFailed as error:
            print(f"reembed: {error.message}", file=sys.stderr)
            return 2
        return await _build(services, index, client_id or mi.DEPLOYMENT, limit)
    finally:
        await close_services(services)


async def _check_client(services: Services, client_id: str | None) -> None:
    if client_id is not None and not await services.graph.read(CLIENT, {"id": client_id}):
        raise ValidationFailed(f"no client with id {client_id!r}", field="client_id")


async def _build(services: Services, index: VectorIndex, scope: str, limit: int | None) -> int:
    graph, settings = services.graph, services.settings
    status = await mi.register(graph, scope, index)
    await mi.ensure_vector_index(graph, index, wait_s=INDEX_ONLINE_WAIT_S)
    services.embedder.invalidate()  # this process's worker embeds for it from now on
    where = f"client {scope}" if scope else "the deployment"
    print(f"reembed: {index.model} ({index.dimensions} dimensions, {status}) for {where}")
    claimant = Claimant(holder=new_holder(), claim_s=settings.embedding_claim_s)
    embedded = 0
    for _ in range(MAX_WALKS):
        total, missing = await mi.missing(graph, scope, index)
        walk, started = Walk(), time.monotonic()
        while not walk.done and (limit is None or embedded + walk.embedded < limit):
            room = settings.embedding_batch_size
            if limit is not None:
                room = min(room, limit - embedded - walk.embedded)
            await walk_step(
                graph,
                services.embedder.model(index.model),
                index,
                scope,
                walk,
                batch=room,
                claimant=claimant,
                load_text=services.indexer.load_text,
            )
            done = total - missing + walk.embedded
            await mi.save_progress(graph, scope, index, done=done, total=total)
            rate = walk.embedded / max(time.monotonic() - started, 1e-9)
            print(f"\r  {done:,}/{total:,} records ({rate:,.0f}/s)", end="", file=sys.stderr)
        embedded += walk.embedded
        print(file=sys.stderr)  # ends the progress line
        print(f"reembed: {embedded:,} records embedded")
        if not walk.done:
            print(f"reembed: stopped after {embedded:,} (--limit); run it again to go on")
            return 0
        if status is MemoryIndexStatus.ACTIVE:
            return 0  # search already uses it: this filled what it lacked
        retired = await mi.activate(graph, scope, index)
        if retired is not None:
            print(f"reembed: search uses {index.model} now (retired: {', '.join(retired) or '-'})")
            return 0
    _, left = await mi.missing(graph, scope, index)
    print(f"reembed: {left:,} records still lack {index.model}; run it again")
    return 1
