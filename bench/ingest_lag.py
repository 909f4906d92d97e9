"""Benchmark: ingest with embeddings. Conversation events are appended through the API
(appendConversationEvents batches, LoCoMo turn texts) while the API's in-process embedding
worker indexes them; searchStatus { pending lagSeconds }, /readyz and the client's own lag
(age of its oldest record not indexed yet) are sampled every second, during the load and
until the client has nothing pending. Baseline in the same run: the bare embedder's
throughput on the same texts at the worker's batch size (the worker's ceiling here).

Run: bash app/services/env.sh bench ingest_lag [--seconds 60] [--records 3000] [--rate 0]
     [--batch 100] [--writers 2] [--drain-timeout 300]   (local servers up)
Writers stop after --seconds or --records, whichever comes first; --rate paces them (events/s
in all) to see whether the worker keeps up with a given sustained rate (JSON:
ingest_lag_paced.json, else ingest_lag.json). Each run uses a new
client. On a shared database other API processes run workers too and may index some of these
records (the JSON gives how many this server's worker indexed), and the worker's own lag
covers every client's backlog (the JSON gives that backlog at the start).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from neo4j import GraphDatabase

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.cli.admin import create_key  # noqa: E402
from app.model.enums import Role  # noqa: E402
from app.retrieval.embedder import Embedder  # noqa: E402
from app.settings import load_settings  # noqa: E402
from bench._common import free_port, report, serve_api, summary  # noqa: E402
from bench._ingest_load import Load, Observer, backlog  # noqa: E402
from bench.embedding import DEFAULT_TEXTS, load_texts, throughput  # noqa: E402
from bench.event_append import Api  # noqa: E402

CLIENT = "bench-ingest-lag"


def run(observer: Observer, load: Load, args: argparse.Namespace) -> dict[str, Any]:
    timeline: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.writers) as pool:
        futures = [pool.submit(load.writer, n) for n in range(args.writers)]
        while time.perf_counter() - t0 < args.seconds and not all(f.done() for f in futures):
            time.sleep(1)
            timeline.append(observer.sample(load, t0))
            _progress("load", timeline[-1])
        load.stop.set()
        for future in futures:
            future.result()
    write_s = load.last_write - t0
    while time.perf_counter() - t0 < write_s + args.drain_timeout:
        timeline.append(observer.sample(load, t0))
        _progress("drain", timeline[-1])
        if timeline[-1]["pending"] == 0:
            break
        time.sleep(1)
    print(file=sys.stderr)
    last = timeline[-1]
    drained = last["pending"] == 0
    return {
        "written": load.written,
        "write_seconds": round(write_s, 1),
        "written_per_s": round(load.written / write_s, 1),
        "drained": drained,
        "drained_after_s": last["t"] if drained else None,
        "indexed_per_s": round(load.written / last["t"], 1) if drained else None,
        "pending_at_write_end": next(s["pending"] for s in timeline if s["t"] >= write_s),
        "pending_at_end": last["pending"],
        "max_pending": max(s["pending"] for s in timeline),
        "max_client_lag_s": max(s["client_lag_s"] for s in timeline),
        "final_client_lag_s": last["client_lag_s"],
        "max_worker_lag_s": max(s["worker_lag_s"] for s in timeline),
        "final_worker_lag_s": last["worker_lag_s"],
        "worker_indexed": last["worker_indexed"] - timeline[0]["worker_indexed"],
        "timeline": timeline,
    }


def _progress(phase: str, s: dict[str, Any]) -> None:
    line = (
        f"\r  {phase} t={s['t']:.0f}s written={s['written']} pending={s['pending']} "
        f"client lag={s['client_lag_s']:.1f}s worker lag={s['worker_lag_s']:.0f}s   "
    )
    print(line, end="", file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60, help="how long the writers write")
    parser.add_argument("--records", type=int, default=3_000, help="stop writing after these")
    parser.add_argument("--rate", type=float, default=0, help="events/s in all; 0: unthrottled")
    parser.add_argument("--batch", type=int, default=100, help="events per request")
    parser.add_argument("--writers", type=int, default=2, help="concurrent writers")
    parser.add_argument("--drain-timeout", type=float, default=300)
    parser.add_argument("--texts", type=Path, default=DEFAULT_TEXTS)
    args = parser.parse_args()
    settings = load_settings()
    _, turns = load_texts(args.texts)
    embedder = Embedder(
        model_name=settings.embedding_model, dimensions=settings.embedding_dimensions
    )
    embedder.embed_sync(["warm up"])
    batch = settings.embedding_batch_size
    print(f"baseline: bare embedder, batch {batch}", file=sys.stderr)
    bare = throughput(embedder, turns, batch, batch * 2)
    name = f"{CLIENT}-{uuid.uuid4().hex[:8]}"
    issued = asyncio.run(create_key(settings, client=name, role=Role.AGENT, agent_name="bench"))
    # /readyz shows the embedding worker's details to an admin key only.
    admin = asyncio.run(create_key(settings, client=name, role=Role.ADMIN, agent_name=None))
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        waiting = backlog(driver)
        port, load_before = free_port(), os.getloadavg()
        server = serve_api(port)
        try:
            api = Api(port, issued.secret)
            bearer = {"Authorization": f"Bearer {admin.secret}"}
            url = f"http://127.0.0.1:{port}"
            with httpx.Client(base_url=url, headers=bearer, timeout=60) as http:
                observer = Observer(api, http, driver, issued.principal.client_id)
                load = Load(api, turns, args)
                result = run(observer, load, args)
        finally:
            server.terminate()
            server.wait(timeout=30)
    rows = {
        f"appendConversationEvents x{args.batch} (during load)": summary(load.request_ms),
        f"bare embedder batch {batch} (per batch)": bare,
    }
    indexed, ceiling = result["indexed_per_s"], bare["records_per_s"]
    ratios = (
        {"indexed/s over bare embedder records/s": round(indexed / ceiling, 2)} if indexed else {}
    )
    print(f"bare embedder: {ceiling} records/s")
    for key in ("written_per_s", "indexed_per_s", "max_pending", "pending_at_end"):
        print(f"{key}: {result[key]}")
    for key in ("max_client_lag_s", "final_client_lag_s", "max_worker_lag_s", "worker_indexed"):
        print(f"{key}: {result[key]}")
    sizes = {key: getattr(args, key) for key in ("seconds", "records", "rate", "batch", "writers")}
    extra = {
        "client": name,
        "ingest": result,
        "worker_batch": batch,
        "backlog_at_start": waiting,
        "load_before": load_before,
        "load_after": os.getloadavg(),
        "texts": str(args.texts),
    }
    benchmark = "ingest_lag_paced" if args.rate else "ingest_lag"
    report(benchmark, sizes=sizes, rows=rows, ratios=ratios, neo4j_server="n/a", extra=extra)


if __name__ == "__main__":
    main()
