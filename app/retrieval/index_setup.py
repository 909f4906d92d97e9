"""At start-up: the deployment's first memory index registered (the configured model on a new
database), the vector index of every model in use created, the registry the embedder reads
(app/retrieval/index_registry.py), and every model in use made ready to load (its ONNX export,
once per model's files: app/retrieval/onnx_encoder.py)."""

from __future__ import annotations

import asyncio
import logging

from app.graph.executor import GraphExecutor
from app.model.enums import MemoryIndexStatus
from app.retrieval import memory_index as mi
from app.retrieval.embedder import Embedder
from app.retrieval.index_registry import IndexRegistry
from app.retrieval.indexed_embedder import IndexedEmbedder
from app.retrieval.vector_index import LEGACY_MODEL, VectorIndex, for_model, legacy_slot

log = logging.getLogger(__name__)
INDEX_ONLINE_WAIT_S = 300.0


async def model_index(embedder: Embedder) -> VectorIndex:
    """The model's property and index; its dimension read from the model (loaded once, off the
    event loop) unless it is the first model."""
    if embedder.model_name == LEGACY_MODEL:
        return legacy_slot(LEGACY_MODEL)
    dimensions = await asyncio.to_thread(embedder.dimension_sync)
    return for_model(embedder.model_name, dimensions)


async def open_registry(
    graph: GraphExecutor, embedder: IndexedEmbedder, *, refresh_s: float
) -> IndexRegistry:
    registry = IndexRegistry(graph, default=legacy_slot(embedder.model_name), refresh_s=refresh_s)
    view = await registry.view()
    if view.active(mi.DEPLOYMENT) is view.default:  # a database without an active index
        configured = await model_index(embedder)
        await mi.ensure_default(graph, legacy=legacy_slot(LEGACY_MODEL), configured=configured)
        registry.invalidate()
        view = await registry.view()
    # Every index the worker writes exists; start-up waits only for those search reads (a
    # client's BUILDING index, still populating, can take minutes to come online).
    entries = view.entries()
    searched = {entry.index for entry in entries if entry.status == MemoryIndexStatus.ACTIVE}
    for index in {entry.index for entry in entries if entry.status != MemoryIndexStatus.RETIRED}:
        wait_s = INDEX_ONLINE_WAIT_S if index in searched else None
        await mi.ensure_vector_index(graph, index, wait_s=wait_s)
    active = view.active(mi.DEPLOYMENT)
    if active.model != embedder.model_name:
        log.warning(
            "AGENTMEM_EMBEDDING_MODEL is %s but search uses %s, the active index; "
            "`agentmem reembed` builds the new one and switches once it is complete",
            embedder.model_name,
            active.model,
        )
    embedder.registry = registry
    # Here, not on a request: a model's first ONNX export takes 10-30 s (later starts find it).
    models = [
        embedder.model_name,
        *(entry.index.model for entry in entries if entry.status != MemoryIndexStatus.RETIRED),
    ]
    for name in dict.fromkeys(models):
        await asyncio.to_thread(embedder.model(name).prepare_sync)
    return registry
