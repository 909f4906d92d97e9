"""Benchmark: memory records through HTTP GraphQL (remember create, remember upsert, recall by
key) against the same writes and reads in hand-written Cypher through the driver, with the
access log on and off (two API processes, AGENTMEM_ACCESS_LOG_ENABLED=true/false).

Run: bash app/services/env.sh bench memory_ops [--runs 200] [--ops 300] [--concurrency 8]
(local servers up). Latency cases run interleaved, one call each per round, so load from other
processes falls on all of them alike; throughput runs `ops` calls with `concurrency` in flight.
The embedding worker is off in both API processes so that it does not compete for the CPU.

GraphQL goes through thin keep-alive HTTP clients (bench._common.GraphQLClient, and
AsyncGraphQLClient, one per worker, for throughput), as in bench lineage: httpx cost this
benchmark's process 2.5 ms of CPU a request at 8 in flight, more than the API itself, on the
same two cores as the API and Neo4j (issue 12: with httpx, every GraphQL figure here mostly
measured the client).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from neo4j import AsyncGraphDatabase, Driver, GraphDatabase

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.cli.admin import create_key  # noqa: E402
from app.model.enums import Role  # noqa: E402
from app.settings import Settings, load_settings  # noqa: E402
from bench._common import (  # noqa: E402
    AsyncGraphQLClient,
    GraphQLClient,
    free_port,
    report,
    serve_api,
)
from bench.replay import interleaved  # noqa: E402

REMEMBER = """mutation($input: RememberInput!) { remember(input: $input) { id version } }"""
RECALL = """query($ns: NamespaceInput, $key: String!) {
  recallMemory(namespace: $ns, key: $key) { id text content tags priority version } }"""
CREATE = """
CREATE (r:MemoryRecord)
SET r = $props, r.id = randomUUID(), r.created_at = $now, r.updated_at = $now, r.version = 1
RETURN r.id AS id
"""
UPSERT = """
MERGE (r:MemoryRecord {client_id: $client_id, namespace: $namespace, key: $key})
ON CREATE SET r.id = randomUUID(), r.created_at = $now, r.version = 0
WITH r, r.version AS previous
CALL (r, previous) {
  WITH r, previous WHERE previous > 0
  CREATE (r)-[:HAS_VERSION]->(v:MemoryVersion)
  SET v = {id: randomUUID(), client_id: r.client_id, record_id: r.id, version: r.version,
           kind: r.kind, text: r.text, content: r.content, tags: r.tags, priority: r.priority,
           active: r.active, valid_from: r.updated_at, created_at: $now, updated_at: $now}
}
SET r += $props, r.version = previous + 1, r.updated_at = $now
RETURN r.id AS id
"""
READ = """
MATCH (r:MemoryRecord {client_id: $client_id, namespace: $namespace, key: $key})
WHERE r.active AND (r.expires_at IS NULL OR r.expires_at > $now)
RETURN r {.*} AS record
"""
KEYS = 100
CONTENT = {"channel": "voice", "facts": ["likes hiking", "allergic to peanuts"], "score": 0.8}


def memory(path: str, key: str) -> dict[str, Any]:
    path = path.replace(" ", "-")
    return {
        "kind": "SEMANTIC",
        "namespace": {"subject": "alice", "agent": "brad", "path": ["bench", path]},
        "key": key,
        "text": f"memory {key}: Alice likes hiking and is allergic to peanuts",
        "content": CONTENT,
        "tags": ["bench", "profile"],
        "priority": 6,
    }


def props(client_id: str, path: str, key: str) -> dict[str, Any]:
    return {
        "client_id": client_id,
        "namespace": f"subject:alice/agent:brad/bench/{path}",
        "subject": "alice",
        "agent": "brad",
        "path": ["bench", path],
        "key": key,
        "kind": "semantic",
        "text": f"memory {key}: Alice likes hiking and is allergic to peanuts",
        "content": '{"channel":"voice","facts":["likes hiking","allergic to peanuts"]}',
        "tags": ["bench", "profile"],
        "priority": 6,
        "active": True,
    }


def gql(http: GraphQLClient, query: str, variables: Callable[[], dict[str, Any]]) -> Any:
    def call() -> None:
        http.post(query, variables())  # raises on errors

    return call


def cypher(driver: Driver, query: str, params: Callable[[], dict[str, Any]]) -> Any:
    def call() -> None:
        records = driver.execute_query(query, params() | {"now": datetime.now(UTC)}).records
        assert records

    return call


def latency_cases(
    servers: dict[str, GraphQLClient], driver: Driver, client_id: str
) -> dict[str, Callable[[], None]]:
    """Per path (log on, log off, Cypher): create a new key, upsert one of KEYS, recall one."""
    cases: dict[str, Callable[[], None]] = {}
    for name, http in servers.items():
        cases[f"remember create GraphQL {name}"] = gql(http, REMEMBER, _fresh(name))
        cases[f"remember upsert GraphQL {name}"] = gql(http, REMEMBER, _upsert(name))
        cases[f"recall GraphQL {name}"] = gql(http, RECALL, _recall(name))
    keys, reads = itertools.cycle(range(KEYS)), itertools.cycle(range(KEYS))
    base = {"client_id": client_id}
    cases["remember create Cypher"] = cypher(
        driver, CREATE, lambda: {"props": props(client_id, "new-cypher", uuid.uuid4().hex)}
    )
    # The same keyed write as GraphQL's (MERGE on client, namespace and key) with a key never
    # used: what a remember of a new key must do, beside the bare CREATE above.
    cases["remember create Cypher MERGE"] = cypher(
        driver, UPSERT, lambda: base | _keyed(props(client_id, "new-merge", uuid.uuid4().hex))
    )
    cases["remember upsert Cypher"] = cypher(
        driver, UPSERT, lambda: base | _keyed(props(client_id, "cypher", f"k{next(keys)}"))
    )
    cases["recall Cypher"] = cypher(
        driver, READ, lambda: base | _keyed(props(client_id, "cypher", f"k{next(reads)}"))
    )
    return cases


def _fresh(path: str) -> Callable[[], dict[str, Any]]:
    return lambda: {"input": memory(f"new-{path}", uuid.uuid4().hex)}


def _upsert(path: str) -> Callable[[], dict[str, Any]]:
    keys = itertools.cycle(range(KEYS))
    return lambda: {"input": memory(path, f"k{next(keys)}")}


def _recall(path: str) -> Callable[[], dict[str, Any]]:
    keys = itertools.cycle(range(KEYS))
    return lambda: {"ns": memory(path, "")["namespace"], "key": f"k{next(keys)}"}


def _keyed(values: dict[str, Any]) -> dict[str, Any]:
    return {"namespace": values["namespace"], "key": values["key"], "props": values}


async def throughput(call: Callable[[int], Awaitable[None]], ops: int, concurrency: int) -> float:
    """Operations per second for `ops` calls with `concurrency` in flight."""
    counter = itertools.count()

    async def worker() -> None:
        while (n := next(counter)) < ops:
            await call(n)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return round(ops / (time.perf_counter() - started), 1)


async def throughputs(
    settings: Settings, ports: dict[str, int], keys: dict[str, str], client_id: str, args: Any
) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, port in ports.items():
        # A keep-alive connection per call in flight, each used by one call at a time.
        idle: asyncio.Queue[AsyncGraphQLClient] = asyncio.Queue()
        for _ in range(args.concurrency):
            idle.put_nowait(AsyncGraphQLClient(port, keys[name]))

        async def post(query: str, variables: dict[str, Any], idle: Any = idle) -> None:
            client = await idle.get()
            try:
                await client.post(query, variables)
            finally:
                idle.put_nowait(client)

        async def write(n: int, name: str = name) -> None:
            await post(REMEMBER, {"input": memory(name, f"k{n % KEYS}")})

        async def read(n: int, name: str = name) -> None:
            await post(RECALL, {"ns": memory(name, "")["namespace"], "key": f"k{n % KEYS}"})

        out[f"remember GraphQL {name} ops/s"] = await throughput(write, args.ops, args.concurrency)
        out[f"recall GraphQL {name} ops/s"] = await throughput(read, args.ops, args.concurrency)
        while not idle.empty():
            await idle.get_nowait().close()
        print(f"  throughput {name} done", file=sys.stderr)
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    async with AsyncGraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:

        async def cwrite(n: int) -> None:
            params = {"client_id": client_id} | _keyed(props(client_id, "cypher", f"k{n % KEYS}"))
            await driver.execute_query(UPSERT, params | {"now": datetime.now(UTC)})

        async def cread(n: int) -> None:
            params = {"client_id": client_id} | _keyed(props(client_id, "cypher", f"k{n % KEYS}"))
            await driver.execute_query(READ, params | {"now": datetime.now(UTC)})

        out["remember Cypher ops/s"] = await throughput(cwrite, args.ops, args.concurrency)
        out["recall Cypher ops/s"] = await throughput(cread, args.ops, args.concurrency)
    return out


def start_server(log: bool) -> tuple[Any, int]:
    port = free_port()
    os.environ["AGENTMEM_ACCESS_LOG_ENABLED"] = "true" if log else "false"
    os.environ["AGENTMEM_EMBEDDING_WORKER_IN_PROCESS"] = "false"
    try:
        return serve_api(port), port
    finally:
        del os.environ["AGENTMEM_ACCESS_LOG_ENABLED"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--ops", type=int, default=300, help="calls per throughput case")
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    settings = load_settings()
    name = f"bench-memory-{uuid.uuid4().hex[:8]}"
    # The records are agent brad's (namespace agent:brad): an agent key acts only as its agent.
    issued = asyncio.run(create_key(settings, client=name, role=Role.AGENT, agent_name="brad"))
    client_id = issued.principal.client_id
    started = {"log on": start_server(True), "log off": start_server(False)}
    ports = {label: port for label, (_, port) in started.items()}
    keys = {label: issued.secret for label in started}
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    try:
        with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
            version = driver.get_server_info().agent
            servers = {label: GraphQLClient(port, issued.secret) for label, port in ports.items()}
            cases = latency_cases(servers, driver, client_id)
            for case, call in cases.items():
                if "upsert" in case:  # every key exists before anything reads it
                    for _ in range(KEYS):
                        call()
            rows = interleaved(cases, runs=args.runs, warmup=20)
        rates = asyncio.run(throughputs(settings, ports, keys, client_id, args))
    finally:
        for server, _ in started.values():
            server.terminate()
            server.wait(timeout=30)
    ratios: dict[str, float] = {}
    for what in ("remember create", "remember upsert", "recall"):
        on, off, raw = (
            rows[f"{what} {p}"] for p in ("GraphQL log on", "GraphQL log off", "Cypher")
        )
        ratios[f"{what} GraphQL(log on)/Cypher p50"] = round(on["median_ms"] / raw["median_ms"], 2)
        ratios[f"{what} GraphQL(log on)/Cypher p99"] = round(on["p99_ms"] / raw["p99_ms"], 2)
        ratios[f"{what} log on/off p50"] = round(on["median_ms"] / off["median_ms"], 2)
    merge = rows["remember create Cypher MERGE"]["median_ms"]
    create_on = rows["remember create GraphQL log on"]["median_ms"]
    ratios["remember create GraphQL(log on)/Cypher MERGE p50"] = round(create_on / merge, 2)
    for what in ("remember", "recall"):
        rate_on = rates[f"{what} GraphQL log on ops/s"]
        rate_off = rates[f"{what} GraphQL log off ops/s"]
        ratios[f"{what} throughput log on/off"] = round(rate_on / rate_off, 2)
        ratios[f"{what} throughput GraphQL(log on)/Cypher"] = round(
            rate_on / rates[f"{what} Cypher ops/s"], 2
        )
    for label, rate in rates.items():
        print(f"{label}: {rate}")
    sizes = {
        "runs": args.runs,
        "keys": KEYS,
        "throughput_ops": args.ops,
        "concurrency": args.concurrency,
        "throughput_ops_per_s": rates,
    }
    report("memory_ops", sizes=sizes, rows=rows, ratios=ratios, neo4j_server=version)


if __name__ == "__main__":
    main()
