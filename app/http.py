"""The Starlette application: one lifespan creates the shared clients and hands them on."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from neo4j import AsyncGraphDatabase
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from app.api.context import Services
from app.api.http_view import GraphQLApp
from app.api.introspection import IntrospectionAnswers
from app.artifacts.store import ArtifactStore, open_store
from app.auth import RequireApiKey
from app.domain.principal import Principal
from app.graph.executor import GraphExecutor, driver_timeouts
from app.graph.migrations import migrate
from app.middleware import RequestEdge, http_error
from app.model.enums import Role
from app.readiness import close_probes, metrics, readyz
from app.retrieval.embedder import Embedder
from app.retrieval.indexing import TextLoader
from app.retrieval.worker import EmbeddingWorker
from app.services.graphiql_assets import LOCAL_PREFIX, local_assets
from app.services.memory_background import start_memory_background
from app.settings import Settings

log = logging.getLogger("app")


async def open_services(settings: Settings, *, apply_migrations: bool = True) -> Services:
    driver = AsyncGraphDatabase.driver(
        settings.neo4j_uri,
        auth=(settings.neo4j_user, settings.neo4j_password.get_secret_value()),
        # Planner notices (e.g. a property no record has yet) are not errors; keep logs clean.
        notifications_min_severity="OFF",
        **driver_timeouts(settings.dependency_timeout_s),
    )
    await driver.verify_connectivity()
    graph = GraphExecutor(
        driver, database=settings.neo4j_database, timeout_s=settings.dependency_timeout_s
    )
    if apply_migrations:
        report = await migrate(graph.unbounded())
        log.info("schema at version %d", report.current_version)
    artifacts = open_store(settings)
    await artifacts.ensure_bucket()
    embedder = Embedder(
        model_name=settings.embedding_model,
        dimensions=settings.embedding_dimensions,
        threads=settings.embedding_threads,
    )
    indexer = EmbeddingWorker(
        graph.background(),
        embedder,
        batch=settings.embedding_batch_size,
        poll_s=settings.embedding_poll_s,
        load_text=stored_text_loader(artifacts),
    )
    return Services(
        settings=settings, graph=graph, artifacts=artifacts, embedder=embedder, indexer=indexer
    )


def stored_text_loader(artifacts: ArtifactStore) -> TextLoader:
    """How the embedding worker reads long text kept in object storage, as its owner."""

    async def load(client_id: str, uri: str) -> str:
        owner = Principal(client_id=client_id, role=Role.ADMIN, key_id="embedding-worker")
        return (await artifacts.get(owner, uri)).decode("utf-8", errors="replace")

    return load


async def healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


class GraphQLEndpoint:
    """An ASGI endpoint (so /graphql needs no trailing slash) that defers to the lifespan's app."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await scope["app"].state.graphql(scope, receive, send)


def create_app(settings: Settings) -> Starlette:
    ide_assets = local_assets(settings)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        services = await open_services(settings)
        app.state.services = services
        graphql = GraphQLApp(services, local_ide_assets=ide_assets is not None)
        introspection = IntrospectionAnswers(
            graphql, per_minute=settings.keyless_introspection_per_minute
        )
        app.state.graphql = RequireApiKey(
            graphql, graph=services.graph, introspection=introspection
        )
        app.state.memory_background = start_memory_background(services)
        if settings.embedding_worker_in_process:
            services.indexer.start()
        try:
            yield
        finally:
            await app.state.memory_background.stop()
            await services.indexer.stop()
            await app.state.graphql.keys.close()
            await services.graph.driver.close()
            services.artifacts.close()
            close_probes(app.state)

    routes: list[BaseRoute] = [
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        Route("/metrics", metrics),
        Route("/graphql", GraphQLEndpoint(), methods=["GET", "POST"]),
    ]
    if ide_assets is not None:
        routes.append(Mount(LOCAL_PREFIX.rstrip("/"), app=StaticFiles(directory=ide_assets)))
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={HTTPException: http_error},
    )
    app.add_middleware(
        RequestEdge,
        max_body_bytes=settings.max_body_bytes,
        body_timeout_s=settings.body_timeout_s,
        deadline_s=settings.dependency_timeout_s,
    )
    return app
