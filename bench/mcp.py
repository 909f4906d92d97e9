"""Benchmark: an MCP tool call against the same GraphQL request (issue: agents' door; target: MCP
adds at most 1 ms at p50). `remember` and `search_memory` as `tools/call` JSON-RPC POSTs to /mcp
2026-07-28, which the SDK's client speaks; remember also as a 2025-06-18 stateless POST),
and the very document each tool runs (app/mcp/operations.py) with the same variables as a POST
to /graphql, on the same API process and key, the cases taking turns call by call
(bench._common.timed_rounds). Both sides use one keep-alive http.client connection, so the
difference is the server's: the MCP SDK's JSON-RPC handling, the argument check and the
compact result, against GraphQL's HTTP view. A new client holds N memory records, indexed by
the in-process embedding worker before anything is timed.

Run: bash app/services/env.sh bench mcp [--records 300] [--runs 600] (local servers up).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import itertools
import json
import statistics
import sys
import uuid
from importlib import metadata
from pathlib import Path
from typing import Any

from neo4j import GraphDatabase

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.api.schema import build_schema  # noqa: E402
from app.cli.admin import create_key  # noqa: E402
from app.mcp.catalogue import TOOLS  # noqa: E402
from app.mcp.operations import build  # noqa: E402
from app.model.enums import Role  # noqa: E402
from app.settings import load_settings  # noqa: E402
from bench._common import (  # noqa: E402
    GraphQLClient,
    free_port,
    report,
    serve_api,
    summary,
    timed_rounds,
)
from bench.similar import seed, wait_indexed  # noqa: E402

TARGET_ADDED_MS = 1.0
QUESTIONS = ["an angry customer asked about refunds", "shipping delays", "pricing questions"]


MODERN = "2026-07-28"  # single-exchange POSTs: what the SDK's own client speaks to this server
LEGACY = "2025-06-18"  # the handshake era: each POST a fresh stateless transport in the SDK
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


class McpClient:
    """`tools/call` over one keep-alive connection, as thin as GraphQLClient: each POST answered
    on its own, in JSON (the protocol's 2026-07-28 revision, or the stateless 2025-06-18 one)."""

    def __init__(self, port: int, secret: str, version: str = MODERN) -> None:
        self._connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self._headers = {
            "Authorization": f"Bearer {secret}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": version,
        }
        self._modern = version == MODERN
        self._ids = itertools.count(1)

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        params: dict[str, Any] = {"name": tool, "arguments": arguments}
        headers = self._headers
        if self._modern:
            params["_meta"] = META
            headers = {**headers, "Mcp-Method": "tools/call", "Mcp-Name": tool}
        message = {
            "jsonrpc": "2.0",
            "id": next(self._ids),
            "method": "tools/call",
            "params": params,
        }
        self._connection.request("POST", "/mcp", body=json.dumps(message), headers=headers)
        response = self._connection.getresponse()
        answer: dict[str, Any] = json.loads(response.read())
        result = answer.get("result") or {}
        if response.status != 200 or "error" in answer or result.get("isError"):
            raise RuntimeError(f"HTTP {response.status}: {json.dumps(answer)[:500]}")
        return dict(result.get("structuredContent") or json.loads(result["content"][0]["text"]))

    def close(self) -> None:
        self._connection.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=300)
    parser.add_argument("--runs", type=int, default=600)
    args = parser.parse_args()
    settings = load_settings()
    schema = build_schema(settings)._schema
    operations = {spec.name: build(spec, schema) for spec in TOOLS}
    port = free_port()
    name = f"bench-mcp-{uuid.uuid4().hex[:8]}"
    key = asyncio.run(create_key(settings, client=name, role=Role.AGENT, agent_name="bench"))
    server = serve_api(port)
    try:
        seeding = GraphQLClient(port, key.secret)
        seed(seeding, args.records)
        indexed_s = wait_indexed(seeding)
        # The first search loads the embedding model: done before the timed connections
        # open, so none of them sits idle past the server's keep-alive meanwhile.
        seeding.post(operations["search_memory"].document, {"input": {"text": "warm up"}})
        seeding.close()
        graphql, mcp = GraphQLClient(port, key.secret), McpClient(port, key.secret)
        legacy = McpClient(port, key.secret, LEGACY)
        notes = itertools.count()
        questions = itertools.cycle(QUESTIONS)

        def remember() -> dict[str, Any]:
            return {"text": f"note {next(notes)} about a refund", "kind": "SEMANTIC"}

        def search() -> dict[str, Any]:
            return {"text": next(questions), "k": 10, "recordTypes": ["MEMORY_RECORD"]}

        def same_request(tool: str, arguments: dict[str, Any]) -> Any:
            operation = operations[tool]
            return graphql.post(operation.document, operation.variables(arguments))

        cases = {
            "remember MCP": lambda: mcp.call("remember", remember()),
            "remember GraphQL": lambda: same_request("remember", remember()),
            "search_memory MCP": lambda: mcp.call("search_memory", search()),
            "search_memory GraphQL": lambda: same_request("search_memory", search()),
            "remember MCP 2025-06-18": lambda: legacy.call("remember", remember()),
            "floor: GraphQL { __typename }": lambda: graphql.post("{ __typename }"),
        }
        samples = timed_rounds(cases, runs=args.runs, warmup=20, label="mcp")
        graphql.close()
        mcp.close()
        legacy.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    rows = {case: summary(values) for case, values in samples.items()}
    # The cases take turns round by round, so each MCP call has its GraphQL twin of the same
    # round: the median of those paired differences is far steadier than the difference of
    # two medians on a shared 2-core machine (a search alone varies by milliseconds).
    added = {
        tool: round(
            statistics.median(
                m - g
                for m, g in zip(samples[f"{tool} MCP"], samples[f"{tool} GraphQL"], strict=True)
            ),
            3,
        )
        for tool in ("remember", "search_memory")
    }
    medians_apart = {
        tool: round(rows[f"{tool} MCP"]["median_ms"] - rows[f"{tool} GraphQL"]["median_ms"], 3)
        for tool in ("remember", "search_memory")
    }
    ratios = {
        f"{tool} MCP/GraphQL p50": round(
            rows[f"{tool} MCP"]["median_ms"] / rows[f"{tool} GraphQL"]["median_ms"], 2
        )
        for tool in ("remember", "search_memory")
    }
    for tool, ms in added.items():
        verdict = "within" if ms <= TARGET_ADDED_MS else "OVER"
        print(
            f"MCP adds {ms:+.3f} ms to {tool} (median of paired differences; difference of "
            f"medians {medians_apart[tool]:+.3f}): {verdict} the {TARGET_ADDED_MS} ms target"
        )
    report(
        "mcp",
        sizes={"records": args.records, "runs": args.runs, "indexing_s": round(indexed_s, 1)},
        rows=rows,
        ratios=ratios,
        neo4j_server=_server_version(settings),
        extra={
            "mcp_sdk": metadata.version("mcp"),
            "mcp_added_ms_p50_paired": added,
            "mcp_added_ms_difference_of_medians": medians_apart,
            "target_added_ms_p50": TARGET_ADDED_MS,
        },
    )


def _server_version(settings: Any) -> str:
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        return str(driver.get_server_info().agent)


if __name__ == "__main__":
    main()
