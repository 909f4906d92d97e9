"""Benchmark: vector search p50/p99 for one client as the index grows (10k, 100k, 1M indexed
records over 1,000 clients), with recall@10 of the index against exact search in the same run.

SYNTHETIC VECTORS (clustered, see bench/_search_data.py), written directly as indexed records
under client ids bench-search-*; the big client holds 10% of every size, 998 regular clients
the rest, a small client 20 records. Cases per client: the service's search path
(app.retrieval.search.search, mode VECTOR, query vector precomputed so that embedding is
excluded), the raw Cypher 25 SEARCH query through the driver with the service's candidate
pool (LIMIT 50, top 10 kept) and with LIMIT 10, and exact cosine over the client's records.

Run: bash app/services/env.sh bench search_scale [--sizes 10000,100000,1000000]
     [--queries 100] [--runs 300] [--max-build-minutes 25] [--drop]   (local servers up)
Records are kept and reused: a later run only writes what is missing. Sizes below what is
already written are skipped (their figures from an earlier run stay in the JSON).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.graph.executor import GraphExecutor  # noqa: E402
from app.runtime import connected  # noqa: E402
from app.settings import load_settings  # noqa: E402
from bench import _search_data as data  # noqa: E402
from bench._common import RESULTS, report  # noqa: E402
from bench._search_measure import K, measure_client  # noqa: E402

NAME = "search_scale"
POOL = max(K * 3, 50)  # the service's candidate pool for k=10 without filters (search.py)


async def build(
    graph: GraphExecutor,
    source: data.VectorSource,
    target: int,
    args: argparse.Namespace,
    budget_s: float,
) -> dict[str, Any]:
    """Writes records up to `target` unless `budget_s` of writing runs out first; the rate."""
    have = await data.bench_count(graph)
    start, started = have, time.perf_counter()
    while have < target and time.perf_counter() - started < budget_s:
        stop = min(target, have + args.batch)
        await data.write(graph, source.records(have, stop), model=args.model)
        have = stop
        rate = (have - start) / (time.perf_counter() - started)
        eta = (target - have) / rate if rate else 0
        print(
            f"\r  building: {have:,}/{target:,} records, {rate:,.0f}/s, ETA {eta / 60:.1f} min",
            end="",
            file=sys.stderr,
            flush=True,
        )
    seconds = time.perf_counter() - started
    if have > start:
        print(file=sys.stderr)
    written = have - start
    return {
        "written": written,
        "seconds": round(seconds, 1),
        "records_per_s": round(written / seconds, 1) if written else None,
        "reached": have,
    }


async def run(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    source = data.VectorSource()
    per_size: dict[str, Any] = _previous()
    # Only writing counts against the build budget, measuring does not.
    budget_s = args.max_build_minutes * 60
    async with connected(load_settings()) as graph:
        version = await graph.read("CALL dbms.components() YIELD versions RETURN versions[0] AS v")
        if args.drop:
            print(f"dropped {await data.drop_all(graph):,} bench records", file=sys.stderr)
        if await data.client_count(graph, data.SMALL) == 0:
            await data.write(graph, source.small_records(), model=args.model)
        for size in sorted(args.sizes):
            have = await data.bench_count(graph)
            if have > size:
                print(f"size {size:,}: skipped, {have:,} records already written", file=sys.stderr)
                continue
            print(f"size {size:,}", file=sys.stderr)
            built = await build(graph, source, size, args, budget_s)
            budget_s -= built["seconds"]
            per_size[str(built["reached"])] = await measure_size(graph, source, args) | {
                "build": built,
                "target": size,
            }
            if built["reached"] < size:
                per_size[str(built["reached"])]["stopped"] = (
                    f"build stopped at {built['reached']:,} of {size:,}: over "
                    f"--max-build-minutes {args.max_build_minutes} at the measured rate"
                )
                break
    return per_size, str(version[0]["v"])


async def measure_size(
    graph: GraphExecutor, source: data.VectorSource, args: argparse.Namespace
) -> dict[str, Any]:
    clients = {
        "big": data.BIG,
        "regular": data.regular_client(1),
        "small": data.SMALL,
    }
    out: dict[str, Any] = {
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "queries": args.queries,
        "runs": args.runs,
        "indexed_total": await data.indexed_total(graph),
        "load_before": os.getloadavg(),
        "clients": {},
    }
    for role, client_id in clients.items():
        records = await data.client_count(graph, client_id)
        queries = source.queries(args.queries, seed=len(client_id))
        result = await measure_client(graph, client_id, records, queries, runs=args.runs, pool=POOL)
        out["clients"][role] = {"client_id": client_id, "records": records, "cases": result.cases}
    out["load_after"] = os.getloadavg()
    return out


def _previous() -> dict[str, Any]:
    path = RESULTS / f"{NAME}.json"
    if not path.exists():
        return {}
    return dict(json.loads(path.read_text()).get("per_size", {}))


def table(per_size: dict[str, Any]) -> dict[str, dict[str, float]]:
    rows: dict[str, dict[str, float]] = {}
    for size, entry in sorted(per_size.items(), key=lambda item: int(item[0])):
        for role, client in entry["clients"].items():
            for case, stats in client["cases"].items():
                rows[f"{int(size):>9,} {role} ({client['records']:,}) {case}"] = stats
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--queries", type=int, default=100, help="recall queries per client")
    parser.add_argument("--runs", type=int, default=300, help="timed rounds per client")
    parser.add_argument("--batch", type=int, default=1_000, help="records per write")
    parser.add_argument("--max-build-minutes", type=float, default=25)
    parser.add_argument("--drop", action="store_true", help="delete the bench records first")
    args = parser.parse_args()
    args.sizes = [int(size) for size in args.sizes.split(",")]
    args.model = load_settings().embedding_model
    per_size, version = asyncio.run(run(args))
    rows = table(per_size)
    print(f"\n{'case':<58}{'recall@10':>10}{'min':>7}{'returned':>9}")
    for case, stats in rows.items():
        recall, low = stats["recall_at_10"], stats["recall_at_10_min"]
        print(f"{case:<58}{recall:>10.3f}{low:>7.2f}{int(stats['returned_min']):>9}")
    ratios = {
        f"{case.rsplit(' service', 1)[0]} service/raw p50": round(
            stats["median_ms"]
            / rows[case.replace("service", f"raw SEARCH LIMIT {POOL}")]["median_ms"],
            2,
        )
        for case, stats in rows.items()
        if case.endswith("service")
    }
    sizes = {"requested": args.sizes, "queries": args.queries, "runs": args.runs, "k": K}
    extra: dict[str, Any] = {
        "vectors": "synthetic clustered (bench/_search_data.py)",
        "per_size": per_size,
        "load_now": os.getloadavg(),
    }
    report(NAME, sizes=sizes, rows=rows, ratios=ratios, neo4j_server=version, extra=extra)


if __name__ == "__main__":
    main()
