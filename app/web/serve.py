"""Serving the API with uvicorn."""

from __future__ import annotations

from typing import Any

import uvicorn
from starlette.types import ASGIApp
from uvicorn.main import STARTUP_FAILURE

from app.logs import configure_logging
from app.settings import Settings
from app.web.app import create_app
from app.web.http_protocol import edge_protocol


def server_config(app: ASGIApp, settings: Settings, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration for the API (the service and the test suite's servers alike):
    its protocol cuts off connections whose request line and headers arrive too slowly or are
    too large. WebSockets (`websockets`' sans-I/O protocol) serve GraphQL subscriptions at
    /graphql; an upgrade anywhere else is refused by the router."""
    http = edge_protocol(
        header_timeout_s=settings.header_timeout_s, max_head_bytes=settings.max_header_bytes
    )
    return uvicorn.Config(app, http=http, ws="websockets-sansio", **options)


def serve(
    settings: Settings, *, graphiql_key: str | None = None, guide_client: str | None = None
) -> None:
    """`graphiql_key`: the key GraphiQL's page sends for a local user, `guide_client` the client
    whose ids fill the Neo4j Browser guide (`up` alone gives them)."""
    configure_logging(settings.log_level)
    config = server_config(
        create_app(settings, graphiql_key=graphiql_key, guide_client=guide_client),
        settings,
        host=settings.api_host,
        port=settings.api_port,
        log_config=None,
        access_log=False,
    )
    server = uvicorn.Server(config)
    server.run()
    if not server.started:  # as `uvicorn.run` does: a failed start exits non-zero
        raise SystemExit(STARTUP_FAILURE)
