"""The Starlette application: one lifespan opens the shared services (app/runtime) and hands
them on."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from opentelemetry.sdk.trace.export import SpanExporter
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from app.api.edge.asgi import error_body
from app.api.edge.graphiql_assets import LOCAL_PREFIX, local_assets
from app.api.edge.introspection import IntrospectionAnswers
from app.api.edge.key_cache import KeyResolver
from app.api.edge.rate_limit import KeyRateLimits, rate_limit_storage
from app.api.edge.ws_auth import ConnectionAuth
from app.api.read.http_view import GraphQLApp
from app.mcp.http import McpEndpoint, open_mcp_http
from app.runtime import Services
from app.runtime.job_metrics import start_job_metrics, stop_job_metrics
from app.runtime.running import running_services
from app.runtime.telemetry import start_tracing, stop_tracing
from app.settings import LOOPBACK_HOSTS, Settings
from app.web.analyst import OpenToBrowser, analyst_routes
from app.web.auth import RequireApiKey
from app.web.console import console_routes
from app.web.metrics import RequestMetrics, metrics
from app.web.middleware import RequestEdge, http_error
from app.web.readiness import close_probes, readyz

# What a browser app sends: the key, the content type, its ids, and MCP's headers.
CORS_REQUEST_HEADERS = [
    "authorization",
    "content-type",
    "x-api-key",
    "x-request-id",
    "x-session-id",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
]


async def healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def no_websocket_here(websocket: WebSocket) -> None:
    """An upgrade anywhere but /graphql: refused in JSON, as every other refusal is (uvicorn
    would otherwise answer an empty 403)."""
    body = error_body(
        f"no WebSocket at {websocket.url.path}; subscriptions are at /graphql", "NOT_FOUND"
    )
    await websocket.send_denial_response(JSONResponse(body, status_code=404))


class GraphQLEndpoint:
    """An ASGI endpoint (so /graphql needs no trailing slash) that defers to the lifespan's app."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await scope["app"].state.graphql(scope, receive, send)


def create_app(
    settings: Settings,
    *,
    span_exporter: SpanExporter | None = None,
    graphiql_key: str | None = None,
    guide_client: str | None = None,
) -> Starlette:
    """`span_exporter`: where spans go instead of OTLP, when tracing is on (the tests').
    `graphiql_key`: sent by GraphiQL's page (app/api/edge/graphiql_page.py), on a loopback
    address only. `guide_client`: the client (by name) whose ids fill the Neo4j Browser guide
    (app/web/analyst.py)."""
    ide_assets = local_assets(settings)
    tracing = start_tracing(settings, span_exporter)
    # Built before serving, so that a storage URI `limits` cannot use stops start-up.
    rate_counts = rate_limit_storage(settings.rate_limit_storage_uri)
    key_limits = KeyRateLimits(settings.key_rate_limits, rate_counts)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            async with running_services(settings) as (services, background):
                app.state.services, app.state.memory_background = services, background
                async with _doors(app, services):
                    job_metrics = start_job_metrics(services, background)
                    # What start-up built (schema, model, driver) lives as long as the
                    # process: kept out of the collector's full passes, which otherwise scan
                    # it all and stall every request.
                    gc.collect()
                    gc.freeze()
                    try:
                        yield
                    finally:
                        gc.unfreeze()
                        close_probes(app.state)
                        await stop_job_metrics(job_metrics, services, background)
        finally:
            stop_tracing(tracing)

    @asynccontextmanager
    async def _doors(app: Starlette, services: Services) -> AsyncIterator[None]:
        """/graphql and /mcp, sharing one key resolver and the rate limits."""
        local = settings.api_host in LOOPBACK_HOSTS
        keys = KeyResolver(services.graph)  # refused everywhere once a revocation is answered
        graphql = GraphQLApp(
            services,
            local_ide_assets=ide_assets is not None,
            demo_key=graphiql_key if local else None,
            connections=ConnectionAuth(keys, key_limits),
        )
        introspection = IntrospectionAnswers(
            graphql, per_minute=settings.keyless_introspection_per_minute, storage=rate_counts
        )
        app.state.graphql = RequireApiKey(
            graphql, keys=keys, introspection=introspection, rate_limits=key_limits
        )
        app.state.mcp = open_mcp_http(services, graphql, keys, key_limits)
        try:
            async with app.state.mcp.running():
                yield
        finally:
            await keys.close()

    routes: list[BaseRoute] = [
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        Route("/metrics", metrics),
        Route("/graphql", GraphQLEndpoint(), methods=["GET", "POST"]),
        WebSocketRoute("/graphql", GraphQLEndpoint()),  # subscriptions: graphql-transport-ws
        WebSocketRoute("/{path:path}", no_websocket_here),
        Route("/mcp", McpEndpoint(), methods=["GET", "POST", "DELETE"]),
        *console_routes(),  # the web console: its page asks for the key
        *analyst_routes(),  # Neo4j Browser's guide and style
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
        metrics=RequestMetrics(r.path for r in routes if isinstance(r, Route | Mount)),
        tracer=tracing.tracer if tracing is not None else None,
    )
    if settings.cors_allowed_origins:  # outermost: the edge's own refusals (413, 503) carry it too
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_allowed_origins,
            allow_methods=["GET", "POST"],
            allow_headers=CORS_REQUEST_HEADERS,
            expose_headers=["x-request-id", "retry-after"],
            allow_credentials=False,
        )
    app.add_middleware(OpenToBrowser)
    app.state.guide_client = guide_client
    return app
