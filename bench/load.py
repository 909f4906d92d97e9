"""Benchmark: the API under load. N clients, each with its own keep-alive connection, send
requests one after another, drawn by a fixed seeded mix: 25% reads by id (plan, asset,
conversation event), 15% lists, 15% lineage (upstream, trace), 15% search (LoCoMo questions,
a few of them asked often), 10% memory recall by key, 10% remember (half upserts, half new
keys) and 10% creates (plans, conversation events). Each level of clients runs for a fixed
window after a short warm-up, against one API process, then against two (clients spread
round robin). Per operation: requests, errors (HTTP status other than 200, GraphQL errors, no
answer), p50, p99; per level: requests/s, and the p99 of non-search and of search requests
against the targets (32 clients, one process: non-search p99 <= 100 ms, search p99 <= 1 s, no
errors); the ratio of two processes' throughput to one's.

Run: bash app/services/env.sh bench load [--clients 8,16,32] [--seconds 20] [--processes 1,2]
     [--warmup 3] [--plans 3] [--memories 200] [--events 320]   (local servers up)
Each run uses a new client: demo plans (written by the demo generator), memory records and
conversations (LoCoMo turns, written through the API), all indexed by the API's embedding
worker before the load starts. The API processes run as in production, the embedding worker
in each (it indexes the load's writes meanwhile); AGENTMEM_* variables reach them.

The clients are bench._common's thin asyncio HTTP client, not httpx: httpx costs about 2.5 ms
of CPU a request in the benchmark's own process (issue 12), which on a two-core machine shared
with the API and Neo4j would come off the throughput measured.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from neo4j import GraphDatabase

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.cli.admin import create_key  # noqa: E402
from app.model.enums import Role  # noqa: E402
from app.settings import Settings, load_settings  # noqa: E402
from bench._common import GraphQLClient, free_port, report, serve_api  # noqa: E402
from bench._load_mix import AGENT, WEIGHTS, Seeded  # noqa: E402
from bench._load_report import level, print_levels, ratios_of, targets  # noqa: E402
from bench._load_run import prime, rows_of, run_level  # noqa: E402
from bench._load_seed import (  # noqa: E402
    say,
    seed_api,
    seed_demo,
    seeded,
    texts,
    wait_indexed,
)
from bench.embedding import DEFAULT_TEXTS  # noqa: E402


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", default="8,16,32", help="concurrent clients per level")
    parser.add_argument("--seconds", type=float, default=20, help="measured window per level")
    parser.add_argument("--processes", default="1,2", help="API process counts")
    parser.add_argument("--warmup", type=float, default=3, help="unmeasured seconds per level")
    parser.add_argument("--plans", type=int, default=3, help="demo plans (~110 nodes each)")
    parser.add_argument("--memories", type=int, default=200)
    parser.add_argument("--events", type=int, default=320, help="conversation events in all")
    parser.add_argument("--threads", type=int, default=32, help="conversations")
    parser.add_argument("--index-timeout", type=float, default=600)
    parser.add_argument("--texts", type=Path, default=DEFAULT_TEXTS)
    args = parser.parse_args()
    args.clients = [int(n) for n in args.clients.split(",")]
    args.processes = sorted(int(n) for n in args.processes.split(","))
    counts = [*args.clients, *args.processes, args.plans, args.memories, args.threads]
    if min(counts) < 1 or args.events < args.threads or args.seconds <= 0:
        parser.error("counts must be >= 1, --events >= --threads and --seconds > 0")
    return args


def start_api(servers: list[subprocess.Popen[bytes]], ports: list[int]) -> int:
    ports.append(free_port())
    servers.append(serve_api(ports[-1]))
    return ports[-1]


def prepare(
    settings: Settings, args: argparse.Namespace, api: GraphQLClient, client_id: str
) -> tuple[Seeded, int]:
    """The API-written records, indexed; what the load reads, and what is still pending."""
    loaded = texts(args.texts)
    say("seeding memories and conversations through the API")
    threads = seed_api(
        api, memories=args.memories, threads=args.threads, events=args.events, turns=loaded[1]
    )
    left = wait_indexed(api, args.index_timeout)
    data = seeded(settings, client_id, memories=args.memories, thread_ids=threads, texts=loaded)
    return data, left


def levels(
    args: argparse.Namespace,
    servers: list[subprocess.Popen[bytes]],
    ports: list[int],
    secret: str,
    data: Seeded,
) -> tuple[dict[str, dict[str, float]], dict[str, Any]]:
    """Every level of clients at every process count; rows and error examples per level."""
    rows: dict[str, dict[str, float]] = {}
    examples: dict[str, Any] = {}
    for processes in args.processes:
        while len(servers) < processes:
            prime(start_api(servers, ports), secret, data)
        for clients in args.clients:
            tag = level(processes, clients)
            say(f"{tag}: {clients} clients on {processes} API process(es)")
            run = run_level(
                ports[:processes],
                secret,
                data,
                clients=clients,
                warmup_s=args.warmup,
                seconds=args.seconds,
            )
            tally = asyncio.run(run)
            rows |= rows_of(tally, tag)
            if tally.examples:
                examples[tag] = dict(tally.examples)
    return rows, examples


def main() -> None:
    args = arguments()
    settings = load_settings()
    name = f"bench-load-{uuid.uuid4().hex[:8]}"
    issued = asyncio.run(create_key(settings, client=name, role=Role.AGENT, agent_name=AGENT))
    client_id = issued.principal.client_id
    say(f"client {name}: {args.plans} demo plans")
    touched = asyncio.run(seed_demo(settings, client_id, args.plans))
    servers: list[subprocess.Popen[bytes]] = []
    ports: list[int] = []
    try:
        api = GraphQLClient(start_api(servers, ports), issued.secret)
        data, pending = prepare(settings, args, api, client_id)
        api.close()
        prime(ports[0], issued.secret, data)
        rows, examples = levels(args, servers, ports, issued.secret, data)
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=30)
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        version = driver.get_server_info().agent
    print_levels(rows, args)
    sizes = {
        "clients": args.clients,
        "processes": args.processes,
        "seconds": args.seconds,
        "warmup_s": args.warmup,
        "demo_plans": args.plans,
        "demo_searchable_touched": touched,
        "memories": args.memories,
        "events": args.events,
        "threads": args.threads,
        "ids_read": {kind: len(ids) for kind, ids in data.ids.items()},
        "search_questions": len(data.questions),
        "pending_when_load_began": pending,
        "mix_percent": WEIGHTS,
    }
    extra = {"client": name, "targets": targets(rows, args), "error_examples": examples}
    ratios = ratios_of(rows, args)
    report("load", sizes=sizes, rows=rows, ratios=ratios, neo4j_server=version, extra=extra)


if __name__ == "__main__":
    main()
