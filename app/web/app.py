"""The Starlette application: one lifespan opens the shared services (app/runtime) and hands
them on."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from app.api.edge.graphiql_assets import LOCAL_PREFIX, local_assets
from app.api.edge.introspection import IntrospectionAnswers
from app.api.read.http_view import GraphQLApp
from app.runtime import close_services, open_services, start_memory_background
from app.settings import Settings
from app.web.auth import RequireApiKey
from app.web.middleware import RequestEdge, http_error
from app.web.readiness import close_probes, metrics, readyz


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
            await app.state.graphql.keys.close()
            await close_services(services)
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
