"""Benchmark: bulk performance-metric ingest through HTTP GraphQL (ingestPerformanceMetrics,
batches of --batch per request) against the same UNWIND write through the driver, batches
interleaved in one run; then rollup latency (metricRollup per grouping) against the same named
Cypher query run through the driver.

Run: bash app/services/env.sh bench metric_ingest [--metrics 100000] [--batch 1000] [--runs 50]
(local servers up; every run makes a fresh client with a small demo graph to attach metrics to)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from neo4j import Driver, GraphDatabase, ManagedTransaction

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.cli.admin import create_key  # noqa: E402
from app.demo.generator import generate_demo  # noqa: E402
from app.domain.engagement import (  # noqa: E402
    INGEST_BATCH,
    ROLLUP_QUERIES,
    batch_params,
    rollup_params,  # noqa: E402
)
from app.domain.kernel.principal import Principal  # noqa: E402
from app.graph.cypher_files import named_query  # noqa: E402
from app.model.enums import MetricType, Platform, Role  # noqa: E402
from app.runtime import connected  # noqa: E402
from app.settings import Settings, load_settings  # noqa: E402
from bench._common import report, serve_api, summary  # noqa: E402

INGEST = (
    "mutation($metrics: [PerformanceMetricInput!]!) { ingestPerformanceMetrics(metrics: $metrics)"
    " { created updated } }"
)
ROLLUP = (
    "query($g: RollupGroupBy!, $from: DateTime, $to: DateTime) { metricRollup(groupBy: $g, "
    "from: $from, to: $to, bucket: WEEK, first: 1000) { key label bucketStart metricType sum "
    "avg max count } }"
)
TARGETS = """
MATCH (a:Asset {client_id: $client_id})-[:HAS_VARIANT]->(v:AssetVariant)
OPTIONAL MATCH (a)-[:FROM_BLUEPRINT]->(:PlanNode)<-[:HAS_NODE]-(p:Plan)
RETURN a.id AS asset, v.id AS variant, p.id AS plan
"""
# The bench client's records (its demo graph and metrics) go once measured, unless --keep.
DELETE_CLIENT = """
MATCH (n {client_id: $client_id})
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS
"""
DAY0 = datetime(2026, 1, 5, tzinfo=UTC)
WEEKS = 8


def metric_rows(targets: list[dict[str, Any]], count: int, rng: random.Random) -> list[Any]:
    """Metrics in the stored shape, each on a variant (with its asset), an asset or a plan."""
    rows = []
    for _ in range(count):
        target = rng.choice(targets)
        link = rng.choice(
            [
                {"asset_id": target["asset"], "variant_id": target["variant"], "plan_id": None},
                {"asset_id": target["asset"], "variant_id": None, "plan_id": None},
                {"asset_id": None, "variant_id": None, "plan_id": target["plan"]},
            ]
        )
        start = DAY0 + timedelta(hours=rng.randrange(24 * 7 * WEEKS))
        rows.append(
            {
                "id": str(uuid.uuid4()),
                "platform": rng.choice(list(Platform)).value,
                "metric_type": rng.choice(list(MetricType)).value,
                "value": float(rng.randrange(10_000)),
                "window_start": start,
                "window_end": start + timedelta(days=1),
            }
            | link
        )
    return rows


def graphql_body(rows: list[dict[str, Any]]) -> bytes:
    names = {"id": "metricId", "metric_type": "metricType", "asset_id": "assetId"}
    names |= {"variant_id": "variantId", "plan_id": "planId"}
    names |= {"window_start": "windowStart", "window_end": "windowEnd"}
    metrics = []
    for row in rows:
        metric: dict[str, Any] = {}
        for key, value in row.items():
            if value is None:
                continue
            if isinstance(value, datetime):
                value = value.isoformat()
            elif key in ("platform", "metric_type"):
                value = value.upper()
            metric[names.get(key, key)] = value
        metrics.append(metric)
    return json.dumps({"query": INGEST, "variables": {"metrics": metrics}}).encode()


async def prepare(settings: Settings, name: str, plans: int) -> tuple[str, list[dict[str, Any]]]:
    async with connected(settings) as graph:
        issued = await create_key(settings, client=name, role=Role.AGENT, agent_name="bench")
        client_id = issued.principal.client_id
        await generate_demo(graph, None, client_id=client_id, plans=plans, progress=False)
        targets = await graph.read(TARGETS, {"client_id": client_id})
        return issued.secret, [t for t in targets if t["plan"] is not None]


def write_batch(tx: ManagedTransaction, params: dict[str, Any]) -> None:
    tx.run(INGEST_BATCH, params).consume()


def ingest(
    driver: Driver,
    http: httpx.Client,
    principal: Principal,
    rows: list[Any],
    *,
    batch: int,
    database: str,
) -> dict[str, Any]:
    """HTTP and driver batches interleaved; seconds and per-batch milliseconds of each."""
    half = len(rows) // 2
    via_http, via_driver = rows[:half], rows[half:]
    http_ms: list[float] = []
    driver_ms: list[float] = []
    for start in range(0, half, batch):
        body = graphql_body(via_http[start : start + batch])
        began = time.perf_counter()
        answer = http.post("/graphql", content=body, headers={"content-type": "application/json"})
        http_ms.append((time.perf_counter() - began) * 1000)
        assert answer.status_code == 200 and "errors" not in answer.json(), answer.text[:500]
        params = batch_params(principal, via_driver[start : start + batch], now=datetime.now(UTC))
        began = time.perf_counter()
        with driver.session(database=database) as session:
            session.execute_write(write_batch, params)
        driver_ms.append((time.perf_counter() - began) * 1000)
        done = start + batch
        print(f"\r  ingest: {min(done, half) * 2}/{len(rows)}", end="", file=sys.stderr)
    print(file=sys.stderr)
    return {"http_ms": http_ms, "driver_ms": driver_ms, "per_side": half}


def timed_pairs(
    first: Callable[[], None], second: Callable[[], None], *, runs: int, label: str
) -> tuple[list[float], list[float]]:
    """Milliseconds of each of two calls made alternately, after 5 untimed pairs."""
    samples: tuple[list[float], list[float]] = ([], [])
    for n in range(runs + 5):
        for fn, into in ((first, samples[0]), (second, samples[1])):
            began = time.perf_counter()
            fn()
            if n >= 5:
                into.append((time.perf_counter() - began) * 1000)
        print(f"\r  {label}: {max(0, n - 4)}/{runs}", end="", file=sys.stderr)
    print(file=sys.stderr)
    return samples


def rollups(
    driver: Driver, http: httpx.Client, client_id: str, runs: int, database: str
) -> tuple[dict[str, dict[str, float]], dict[str, int]]:
    """metricRollup per grouping, weekly buckets over two of the weeks, against its Cypher;
    with the rows each returns (at most 1000)."""
    window = (DAY0 + timedelta(weeks=2), DAY0 + timedelta(weeks=4))
    params = rollup_params(
        metric_types=None, start=window[0], end=window[1], bucket="week", first=1000
    )
    params |= {"client_id": client_id}
    variables = {"from": window[0].isoformat(), "to": window[1].isoformat()}
    results, counts = {}, {}
    for group, query_name in ROLLUP_QUERIES.items():
        name = group.name

        def call_http(name: str = name) -> None:
            body = {"query": ROLLUP, "variables": variables | {"g": name}}
            assert "errors" not in http.post("/graphql", json=body).json()

        def call_cypher(text: str = named_query(query_name)) -> None:
            driver.execute_query(text, params, database_=database)

        # GraphQL and Cypher calls alternate, so that load from elsewhere hits both alike.
        samples = timed_pairs(call_http, call_cypher, runs=runs, label=f"rollup {name}")
        results[f"rollup {name} GraphQL"] = summary(samples[0])
        results[f"rollup {name} Cypher"] = summary(samples[1])
        body = {"query": ROLLUP, "variables": variables | {"g": name}}
        answer = http.post("/graphql", json=body).json()["data"]["metricRollup"]
        records = driver.execute_query(named_query(query_name), params, database_=database)
        assert len(answer) == len(records.records), (name, len(answer), len(records.records))
        counts[name] = len(answer)
    return results, counts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--metrics", type=int, default=100_000, help="per side (HTTP, driver)")
    parser.add_argument("--batch", type=int, default=1_000)
    parser.add_argument("--plans", type=int, default=20, help="demo plans to attach metrics to")
    parser.add_argument("--runs", type=int, default=50, help="rollup runs per case")
    parser.add_argument("--port", type=int, default=8767)
    parser.add_argument("--keep", action="store_true", help="keep the bench client's records")
    args = parser.parse_args()
    settings = load_settings()
    name = f"bench-metrics-{uuid.uuid4().hex[:8]}"
    secret, targets = asyncio.run(prepare(settings, name, args.plans))
    rows = metric_rows(targets, args.metrics * 2, random.Random(7))
    os.environ["AGENTMEM_METRIC_BATCH_SIZE"] = str(args.batch)
    server = serve_api(args.port)
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    db = settings.neo4j_database
    try:
        with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
            version = driver.get_server_info().agent
            client_id = driver.execute_query(
                "MATCH (c:Client {name: $n}) RETURN c.id AS id", {"n": name}, database_=db
            ).records[0]["id"]
            principal = Principal(client_id=client_id, role=Role.AGENT, key_id="bench")
            http = httpx.Client(
                base_url=f"http://127.0.0.1:{args.port}",
                headers={"Authorization": f"Bearer {secret}"},
                timeout=120,
            )
            timings = ingest(driver, http, principal, rows, batch=args.batch, database=db)
            latency, row_counts = rollups(driver, http, client_id, args.runs, db)
    finally:
        server.terminate()
        server.wait(timeout=30)
    per_side = timings["per_side"]
    http_rate = per_side / (sum(timings["http_ms"]) / 1000)
    driver_rate = per_side / (sum(timings["driver_ms"]) / 1000)
    results = {
        f"ingest batch of {args.batch} GraphQL": summary(timings["http_ms"]),
        f"ingest batch of {args.batch} Cypher": summary(timings["driver_ms"]),
    } | latency
    ratios = {"ingest rate Cypher/GraphQL": round(driver_rate / http_rate, 2)}
    for group in ROLLUP_QUERIES:
        for stat in ("median_ms", "p99_ms"):
            ratios[f"rollup {group.name} GraphQL/Cypher {stat[:-3]}"] = round(
                latency[f"rollup {group.name} GraphQL"][stat]
                / latency[f"rollup {group.name} Cypher"][stat],
                2,
            )
    sizes = {"metrics_per_side": per_side, "batch": args.batch, "demo_plans": args.plans}
    sizes |= {"client_metrics": per_side * 2, "rollup_window_weeks": 2, "weeks": WEEKS}
    sizes |= {"rollup_rows": row_counts}
    path = report("metric_ingest", sizes=sizes, rows=results, ratios=ratios, neo4j_server=version)
    rates = {"graphql_metrics_per_s": round(http_rate), "cypher_metrics_per_s": round(driver_rate)}
    print(
        f"ingest: GraphQL {rates['graphql_metrics_per_s']} metrics/s, "
        f"Cypher {rates['cypher_metrics_per_s']} metrics/s"
    )
    document = json.loads(path.read_text())
    path.write_text(json.dumps(document | {"rates": rates}, indent=2) + "\n")
    if not args.keep:
        remove_client(settings, client_id)


def remove_client(settings: Settings, client_id: str) -> None:
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        with driver.session(database=settings.neo4j_database) as session:
            session.run(DELETE_CLIENT, {"client_id": client_id}).consume()


if __name__ == "__main__":
    main()
