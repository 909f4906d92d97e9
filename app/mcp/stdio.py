"""`agentmem mcp`: the MCP server on stdin/stdout for a desktop agent host, as the one principal
its API key names (checked again on every call, so a revoked key stops working at once). The
process runs what the API process runs (app/runtime/running.py); stdout carries only the
protocol, everything else goes to stderr."""

from __future__ import annotations

import sys

from mcp.server.stdio import stdio_server
from starlette.requests import Request

from app.api.edge.key_cache import KeyResolver
from app.api.edge.rate_limit import KeyRateLimits, rate_limit_storage
from app.api.read.http_view import GraphQLApp
from app.domain.kernel.principal import Principal
from app.mcp.calls import ToolCalls
from app.mcp.server import McpDoor, build_server
from app.runtime.running import running_services
from app.settings import Settings

# What the tools read of "the request" on stdio: none of an HTTP request's headers or state.
STDIO_SCOPE = {
    "type": "http",
    "method": "POST",
    "path": "/mcp",
    "headers": [],
    "state": {},
}


async def serve_stdio(settings: Settings, key: str) -> int:
    """Serves until the host closes stdin; 2 when the key is unknown or revoked."""
    async with running_services(settings) as (services, _):
        keys = KeyResolver(services.graph)
        if await keys.principal(key) is None:
            print("agentmem mcp: unknown or revoked API key", file=sys.stderr)
            return 2

        async def authenticate(request: Request) -> Principal | None:
            return await keys.principal(key)

        rate_limits = KeyRateLimits(
            settings.key_rate_limits, rate_limit_storage(settings.rate_limit_storage_uri)
        )
        view = GraphQLApp(services, local_ide_assets=False)
        door = McpDoor(ToolCalls(services, view), authenticate, rate_limits)
        server = build_server(door, stdio_request=Request(STDIO_SCOPE))
        try:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())
        finally:
            await keys.close()
    return 0
