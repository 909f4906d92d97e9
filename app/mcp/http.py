"""MCP over streamable HTTP at /mcp, on the API's own app: the API key resolved at the door as
/graphql resolves it (the same resolver, so a revoked key is refused on both at once), then the
SDK's session manager, stateless and answering in JSON: every POST carries its own key and needs
no session kept in this process (any replica can answer it)."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from app.api.edge.api_key import UNAUTHENTICATED, presented_key
from app.api.edge.asgi import headers_of, send_json
from app.api.edge.key_cache import KeyResolver
from app.api.edge.rate_limit import KeyRateLimits
from app.api.errors import send_unavailable
from app.api.read.http_view import GraphQLApp
from app.domain.kernel import request_facts
from app.domain.kernel.errors import Unavailable
from app.domain.kernel.principal import Principal
from app.logs import request_id
from app.mcp.calls import ToolCalls
from app.mcp.server import McpDoor, build_server
from app.runtime import Services


async def _principal_of(request: Request) -> Principal | None:
    return getattr(request.state, "principal", None)


@dataclass
class McpHttp:
    manager: StreamableHTTPSessionManager
    keys: KeyResolver

    def running(self) -> AbstractAsyncContextManager[None]:
        return self.manager.run()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            principal = await self.keys.principal(presented_key(headers_of(scope)))
        except Unavailable as error:
            await send_unavailable(send, error)
            return
        if principal is None:
            await send_json(send, 401, UNAUTHENTICATED, [(b"www-authenticate", b"Bearer")])
            return
        state = scope.setdefault("state", {})
        # What the edge knows of the request, for the access log: the MCP session manager may
        # run the call in a task that does not see this one's context.
        state["principal"], state["request_id"] = principal, request_id.get()
        state["request_facts"] = request_facts.current()
        await self.manager.handle_request(scope, receive, send)


def open_mcp_http(
    services: Services,
    view: GraphQLApp,
    keys: KeyResolver,
    rate_limits: KeyRateLimits | None,
) -> McpHttp:
    door = McpDoor(ToolCalls(services, view), _principal_of, rate_limits)
    manager = StreamableHTTPSessionManager(
        app=build_server(door),
        stateless=True,
        json_response=True,
        max_request_body_size=services.settings.max_body_bytes,
    )
    return McpHttp(manager, keys)


class McpEndpoint:
    """/mcp, deferring to the lifespan's McpHttp (as /graphql defers to its app)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await scope["app"].state.mcp(scope, receive, send)
