"""Serving the API with uvicorn, and the banner that tells a new user where everything is."""

from __future__ import annotations

from typing import Any

import uvicorn
from starlette.types import ASGIApp
from uvicorn.main import STARTUP_FAILURE

from app.http import create_app
from app.logs import configure_logging
from app.model.enums import Role
from app.services.admin import reuse_or_issue_key
from app.services.http_protocol import edge_protocol
from app.settings import Settings

DEMO_CLIENT = "demo"


async def demo_key(settings: Settings) -> str:
    """A ready API key for the demo client, kept in the cache folder so restarts reuse it."""
    path = settings.cache_dir / "demo-api-key"
    saved = path.read_text().strip() if path.exists() else None
    key = await reuse_or_issue_key(
        settings, saved=saved, client=DEMO_CLIENT, role=Role.ADMIN, agent_name="demo-agent"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(key + "\n")
    path.chmod(0o600)
    return key


def print_banner(settings: Settings, key: str) -> None:
    api = f"http://{settings.api_host}:{settings.api_port}"
    lines = [
        "",
        "agentmem is starting",
        f"  GraphQL + GraphiQL  {api}/graphql",
        f"  health / ready      {api}/healthz   {api}/readyz",
        f"  Neo4j Browser       http://127.0.0.1:{settings.neo4j_http_port}/browser/",
        f"  Bolt                {settings.neo4j_uri}  (user {settings.neo4j_user})",
        f"  S3 endpoint         http://{settings.s3_endpoint}  bucket {settings.s3_bucket}",
        f"  demo API key        {key}",
        "  In GraphiQL, open Headers and paste:",
        f'    {{"Authorization": "Bearer {key}"}}',
        "  Ctrl-C stops the API and the local servers.",
        "",
    ]
    print("\n".join(lines), flush=True)


def server_config(app: ASGIApp, settings: Settings, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration for the API (the service and the test suite's servers alike):
    its protocol cuts off connections whose request line and headers arrive too slowly or are
    too large. No WebSocket: with a WebSocket library installed uvicorn would answer an upgrade
    with an empty 403 (the API has no WebSocket route); here it is answered as plain HTTP, in
    JSON. Subscriptions, when they come, will turn this on with a route that serves them."""
    http = edge_protocol(
        header_timeout_s=settings.header_timeout_s, max_head_bytes=settings.max_header_bytes
    )
    return uvicorn.Config(app, http=http, ws="none", **options)


def serve(settings: Settings) -> None:
    configure_logging(settings.log_level)
    config = server_config(
        create_app(settings),
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
