"""MCP resources: a record read by URI (`agentmem://memory/{id}`, `agentmem://session/{id}`,
`agentmem://trace/{variantId}`), each a GraphQL root field run as the tools run theirs. Another
client's id reads exactly as an id that does not exist (NOT_FOUND)."""

from __future__ import annotations

import re
from typing import Any

import mcp_types as types
from starlette.requests import Request

from app.domain.kernel.principal import Principal
from app.mcp.budget import compact
from app.mcp.calls import ToolCalls, ToolFailure
from app.mcp.catalogue import READ_ARGUMENT, READS

SCHEME = "agentmem://"
URI = re.compile(rf"^{re.escape(SCHEME)}(?P<kind>[a-z]+)/(?P<id>[^/?#]{{1,128}})$")
RESOURCES = [
    types.ResourceTemplate(
        name=kind,
        uri_template=f"{SCHEME}{kind}/{{{READ_ARGUMENT[kind]}}}",
        description=spec.purpose,
        mime_type="application/json",
    )
    for kind, spec in READS.items()
]


async def read_resource(
    calls: ToolCalls, principal: Principal, uri: str, request: Request
) -> dict[str, Any]:
    match = URI.match(uri)
    if match is None or match["kind"] not in READS:
        kinds = ", ".join(t.uri_template for t in RESOURCES)
        raise ToolFailure("VALIDATION", f"no resource {uri!r}; the resources are: {kinds}")
    operation = calls.reads[match["kind"]]
    variables = operation.variables({READ_ARGUMENT[match["kind"]]: match["id"]})
    data = await calls.execute(principal, operation, variables, request)
    return dict(compact(data))
