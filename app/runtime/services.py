"""What a process opens from its settings: the Neo4j driver (as a GraphExecutor), object storage
(ArtifactStore), the embedder and the embedding worker; and how it closes them.

The API process, the embedding worker and `reembed` open all of it (`open_services`); the
one-shot commands (migrate, keys, demo, sweep) need only the graph (`connected`)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from neo4j import AsyncDriver, AsyncGraphDatabase

from app.artifacts.store import ArtifactStore, open_store
from app.domain.changes.watch import FeedWatcher
from app.domain.kernel.principal import Principal
from app.graph import change_feed, temporal_codec
from app.graph.executor import GraphExecutor, driver_timeouts
from app.graph.migrations import migrate
from app.model.enums import Role
from app.retrieval.index_setup import open_registry
from app.retrieval.indexed_embedder import IndexedEmbedder
from app.retrieval.indexing import TextLoader
from app.retrieval.search_slots import limit_searches
from app.retrieval.worker import EmbeddingWorker
from app.settings import Settings

log = logging.getLogger("app")


@dataclass(frozen=True)
class Services:
    """Created once by the app's lifespan and shared by every request."""

    settings: Settings
    graph: GraphExecutor
    artifacts: ArtifactStore
    embedder: IndexedEmbedder
    indexer: EmbeddingWorker
    feed: FeedWatcher  # subscribers' waits on the change feed


def open_driver(settings: Settings, *, bounded: bool) -> AsyncDriver:
    """The Neo4j driver; `bounded` (serving processes) adds the dependency timeouts."""
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    # Planner notices (e.g. a property no record has yet) are not errors; keep output clean.
    if not bounded:
        return AsyncGraphDatabase.driver(
            settings.neo4j_uri, auth=auth, notifications_min_severity="OFF"
        )
    return AsyncGraphDatabase.driver(
        settings.neo4j_uri,
        auth=auth,
        notifications_min_severity="OFF",
        **driver_timeouts(settings.dependency_timeout_s),
    )


async def open_services(settings: Settings, *, apply_migrations: bool = True) -> Services:
    temporal_codec.install()  # before the driver opens connections (app/graph/temporal_codec.py)
    change_feed.RECORDING = settings.change_feed
    driver = open_driver(settings, bounded=True)
    await driver.verify_connectivity()
    graph = GraphExecutor(
        driver, database=settings.neo4j_database, timeout_s=settings.dependency_timeout_s
    )
    if apply_migrations:
        report = await migrate(graph.unbounded())
        log.info("schema at version %d", report.current_version)
    artifacts = open_store(settings)
    await artifacts.ensure_bucket()
    limit_searches(settings.search_concurrency or None)
    embedder = IndexedEmbedder.from_settings(settings)
    await open_registry(graph, embedder, refresh_s=settings.embedding_index_refresh_s)
    indexer = EmbeddingWorker(
        graph.background(),
        embedder,
        batch=settings.embedding_batch_size,
        poll_s=settings.embedding_poll_s,
        claim_s=settings.embedding_claim_s,
        load_text=stored_text_loader(artifacts),
    )
    feed = FeedWatcher(graph, poll_s=settings.change_poll_s)
    return Services(
        settings=settings,
        graph=graph,
        artifacts=artifacts,
        embedder=embedder,
        indexer=indexer,
        feed=feed,
    )


async def close_services(services: Services) -> None:
    """Stops the embedding worker (if it runs), then closes the driver, object storage and the
    embedder's threads."""
    await services.indexer.stop()
    await services.feed.close()
    await services.graph.driver.close()
    services.artifacts.close()
    services.embedder.close()


def stored_text_loader(artifacts: ArtifactStore) -> TextLoader:
    """How the embedding worker reads long text kept in object storage, as its owner."""

    async def load(client_id: str, uri: str) -> str:
        owner = Principal(client_id=client_id, role=Role.ADMIN, key_id="embedding-worker")
        return (await artifacts.get(owner, uri)).decode("utf-8", errors="replace")

    return load


@asynccontextmanager
async def connected(settings: Settings) -> AsyncIterator[GraphExecutor]:
    """The graph alone, for one-shot commands: without the dependency timeouts of serving."""
    driver = open_driver(settings, bounded=False)
    try:
        await driver.verify_connectivity()
        yield GraphExecutor(driver, database=settings.neo4j_database)
    finally:
        await driver.close()
