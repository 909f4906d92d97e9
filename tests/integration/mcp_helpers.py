"""MCP clients for the tests: the SDK's own client over streamable HTTP (/mcp of the served app)
and over stdio (`python -m app mcp --key ...` as a subprocess), and a call that returns the
tool's structured answer with whether it was an error."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from app.cli.commands import REPO

TIMEOUT_S = 120  # the first search loads the embedding model


@dataclass
class Answer:
    error: bool
    value: dict[str, Any]

    @property
    def code(self) -> str:
        assert self.error, self.value
        return str(self.value["error"]["code"])

    @property
    def message(self) -> str:
        return str(self.value["error"]["message"])


class Tools:
    def __init__(self, client: Client) -> None:
        self.client = client
        self.called: set[str] = set()

    async def call(self, name: str, **arguments: Any) -> Answer:
        self.called.add(name)
        result = await self.client.call_tool(name, arguments)
        assert isinstance(result.structured_content, dict), result
        return Answer(bool(result.is_error), result.structured_content)

    async def ok(self, name: str, **arguments: Any) -> dict[str, Any]:
        answer = await self.call(name, **arguments)
        assert not answer.error, (name, answer.value)
        return answer.value


@asynccontextmanager
async def over_http(api_url: str, key: str | None, **extra: str) -> AsyncIterator[Tools]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    headers |= {name.replace("_", "-"): value for name, value in extra.items()}
    http = httpx2.AsyncClient(headers=headers, timeout=TIMEOUT_S)
    transport = streamable_http_client(f"{api_url}/mcp", http_client=http)
    async with http, Client(transport, read_timeout_seconds=TIMEOUT_S) as client:
        yield Tools(client)


def stdio_parameters(key: str) -> StdioServerParameters:
    """`agentmem mcp --key KEY` with this process's settings (the suite's Neo4j and S3)."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "app", "mcp", "--key", key],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=str(REPO),
    )


@asynccontextmanager
async def over_stdio(key: str) -> AsyncIterator[Tools]:
    async with Client(stdio_parameters(key), read_timeout_seconds=TIMEOUT_S) as client:
        yield Tools(client)
