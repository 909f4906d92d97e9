"""The Starlette application: one lifespan creates the shared clients and hands them on."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from neo4j import AsyncGraphDatabase
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from app.api.context import Services
from app.api.http_view import GraphQLApp
from app.artifacts.store import ArtifactStore, make_client
from app.auth import RequireApiKey
from app.domain.principal import Principal
from app.graph.executor import GraphExecutor
from app.graph.migrations import migrate
from app.middleware import BodyLimit, RequestLog
from app.model.enums import Role
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
    )
    await driver.verify_connectivity()
    graph = GraphExecutor(driver, database=settings.neo4j_database)
    if apply_migrations:
        report = await migrate(graph)
        log.info("schema at version %d", report.current_version)
    artifacts = ArtifactStore(make_client(settings), bucket=settings.s3_bucket)
    await artifacts.ensure_bucket()
    embedder = Embedder(
        model_name=settings.embedding_model,
        dimensions=settings.embedding_dimensions,
        threads=settings.embedding_threads,
    )
    indexer = EmbeddingWorker(
        graph,
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


async def readyz(request: Request) -> Response:
    services: Services = request.app.state.services
    checks: dict[str, str] = {}
    try:
        await services.graph.read("RETURN 1 AS ok")
        checks["neo4j"] = "ok"
    except Exception as error:  # noqa: BLE001 - readiness reports any failure
        checks["neo4j"] = f"error: {type(error).__name__}"
    try:
        bucket = services.artifacts.bucket
        exists = await asyncio.to_thread(services.artifacts.client.bucket_exists, bucket)
        checks["s3"] = "ok" if exists else f"error: bucket {bucket} missing"
    except Exception as error:  # noqa: BLE001
        checks["s3"] = f"error: {type(error).__name__}"
    ready = all(value == "ok" for value in checks.values())
    details: dict[str, object] = {
        "embedder": "loaded" if services.embedder.loaded else "lazy (not loaded yet)",
        "embedding": services.indexer.status.details(),
    }
    background = getattr(request.app.state, "memory_background", None)
    if background is not None:
        details |= background.details()
    body = {"status": "ready" if ready else "not ready", "checks": checks, "details": details}
    return JSONResponse(body, status_code=200 if ready else 503)


async def metrics(request: Request) -> Response:
    services: Services = request.app.state.services
    return PlainTextResponse(
        services.indexer.status.metrics(), media_type="text/plain; version=0.0.4"
    )


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
        app.state.graphql = RequireApiKey(graphql, graph=services.graph)
        app.state.memory_background = start_memory_background(services)
        if settings.embedding_worker_in_process:
            services.indexer.start()
        try:
            yield
        finally:
            await app.state.memory_background.stop()
            await services.indexer.stop()
            await services.graph.driver.close()

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
    )
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(RequestLog)
    return app
