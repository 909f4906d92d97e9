"""The MCP server (the SDK's low-level `Server`: our handlers own the tools' schemas and errors,
so that every failure, argument checks included, carries GraphQL's codes). One server serves
both transports; where the principal comes from is the transport's: the /mcp request's API key
(app/mcp/http.py) or the key `agentmem mcp` was started with (app/mcp/stdio.py).

Every tool call and resource read counts against the key's rate limit, as a GraphQL request
does, and is written to the access log as operation `mcp.<tool>` with the call's sanitised
arguments as its request data.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from starlette.requests import Request

from app.api.edge.rate_limit import KeyRateLimits, key_limit_reason, limited_message
from app.domain.kernel import request_facts
from app.domain.kernel.principal import Principal
from app.domain.memory.access_log import Audit, record
from app.logs import request_id
from app.mcp.calls import ToolCalls, ToolFailure
from app.mcp.instructions import INSTRUCTIONS
from app.mcp.operations import describe
from app.mcp.resources import RESOURCES, read_resource
from app.model.enums import AccessOutcome

Authenticate = Callable[[Request], Awaitable[Principal | None]]
STDIO_ADDRESS = "stdio"
# A failed call's access-log outcome by its code, as access_log.outcome_of maps errors.
FAILED_AS = {
    "NOT_FOUND": AccessOutcome.NOT_FOUND,
    "UNAVAILABLE": AccessOutcome.ERROR,
    "INTERNAL": AccessOutcome.ERROR,
}
UNAUTHENTICATED = ToolFailure(
    "UNAUTHENTICATED",
    "missing, unknown or revoked API key; send 'Authorization: Bearer <key>' (HTTP) or start "
    "`agentmem mcp` with --key or AGENTMEM_API_KEY (stdio)",
)


class McpDoor:
    """What the handlers need: the tool runner, who the caller is, and the rate limits."""

    def __init__(
        self, calls: ToolCalls, authenticate: Authenticate, rate_limits: KeyRateLimits | None
    ) -> None:
        self.calls = calls
        self.authenticate = authenticate
        self.rate_limits = rate_limits
        self.tools = [
            types.Tool(
                name=name,
                description=describe(operation),
                input_schema=operation.input_schema,
                annotations=types.ToolAnnotations(read_only_hint=operation.spec.read_only),
            )
            for name, operation in self.calls.operations.items()
        ]

    async def caller(self, request: Request) -> Principal:
        principal = await self.authenticate(request)
        if principal is None:
            raise UNAUTHENTICATED
        if self.rate_limits is not None and (exceeded := await self.rate_limits.hit(principal)):
            message = limited_message(exceeded, key_limit_reason(principal))
            details = {"retryAfterSeconds": exceeded.retry_after_s}
            raise ToolFailure("RATE_LIMITED", message, details)
        return principal

    async def call_tool(self, request: Request, name: str, arguments: dict[str, Any]) -> Any:
        _open_request_facts(request, name, arguments)
        principal = await self.caller(request)
        audit = Audit(operation=f"mcp.{name}", target_type="McpTool")
        try:
            result = await self.calls.call(principal, name, arguments, request)
        except ToolFailure as failure:
            audit.error_message = f"{failure.code}: {failure.message}"[:500]
            record(principal, audit, FAILED_AS.get(failure.code, AccessOutcome.REJECTED))
            raise
        record(principal, audit, AccessOutcome.OK)
        return result


def _open_request_facts(request: Request, name: str, arguments: dict[str, Any]) -> None:
    """What the access log says of the call: the edge's facts of the HTTP request (client
    address, X-Session-Id) and its request id, carried in the request's state because the MCP
    session's task may not see the edge's context (stdio has none: the address reads "stdio"),
    with the sanitised call as the request data."""
    facts = getattr(request.state, "request_facts", None)
    if facts is None:
        request_facts.start_request(STDIO_ADDRESS, None)
    else:
        request_facts.resume(facts)
    request_id.set(getattr(request.state, "request_id", None) or request_id.get())
    request_facts.note_body({"operationName": f"mcp.{name}", "variables": arguments})


def build_server(door: McpDoor, stdio_request: Request | None = None) -> Server[Any]:
    """The server; `stdio_request` stands for the HTTP request a stdio message has none of."""

    def request_of(ctx: ServerRequestContext[Any]) -> Request:
        found = ctx.request if isinstance(ctx.request, Request) else stdio_request
        if found is None:
            raise MCPError(types.INTERNAL_ERROR, "no request to read the caller from")
        return found

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=door.tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            result = await door.call_tool(request_of(ctx), params.name, params.arguments or {})
        except ToolFailure as failure:
            return _tool_result(failure.answer(), is_error=True)
        return _tool_result(result if isinstance(result, dict) else {"result": result})

    async def list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=RESOURCES)

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[])

    async def read(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        request = request_of(ctx)
        try:
            principal = await door.caller(request)
            data = await read_resource(door.calls, principal, str(params.uri), request)
        except ToolFailure as failure:
            code = types.INVALID_PARAMS if failure.code in {"NOT_FOUND", "VALIDATION"} else -32603
            raise MCPError(code, f"{failure.code}: {failure.message}", failure.answer()) from None
        text = json.dumps(data, separators=(",", ":"), default=str)
        contents = types.TextResourceContents(
            uri=params.uri, mime_type="application/json", text=text
        )
        return types.ReadResourceResult(contents=[contents])

    def input_schema(name: str) -> dict[str, Any] | None:
        """For the SDK's check of a call's Mcp-Param headers (2026-07-28 requests): without it
        the SDK lists every tool, schemas and all, on each call to find this one."""
        operation = door.calls.operations.get(name)
        return None if operation is None else operation.input_schema

    return Server(
        "agentmem",
        version="0.1.0",
        instructions=INSTRUCTIONS,
        get_tool_input_schema=input_schema,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resource_templates=list_templates,
        on_list_resources=list_resources,
        on_read_resource=read,
    )


def _tool_result(value: dict[str, Any], *, is_error: bool = False) -> types.CallToolResult:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=value,
        is_error=is_error,
    )
