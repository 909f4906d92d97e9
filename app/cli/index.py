"""Operator commands of the search index: re-embed every record, run the worker alone (a
model's memory index is built by reembed.py)."""

from __future__ import annotations

import asyncio
import sys
import time

from app.graph.executor import GraphExecutor
from app.graph.identifiers import cypher_label
from app.retrieval.pending import pending_query
from app.retrieval.searchable import SEARCHABLE
from app.retrieval.worker import EmbeddingWorker, reset_cursors
from app.runtime import close_services, open_services
from app.runtime.job_metrics import start_job_metrics, stop_job_metrics
from app.settings import Settings

# Every record becomes pending again: clearing indexed_version makes the worker see it, and
# clearing its text hash makes it a changed text, embedded for every index not retired.
_MARK = (
    "MATCH (n:{label}) WHERE n.indexed_version IS NOT NULL "
    "WITH n LIMIT $batch SET n.indexed_version = null, n.search_hash = null "
    "RETURN count(n) AS marked"
)


async def reembed_all(settings: Settings) -> int:
    """Marks every record pending and drains them with the worker, printing progress."""
    services = await open_services(settings)
    graph, worker = services.graph, services.indexer
    try:
        marked = 0
        for label in SEARCHABLE:
            query = _MARK.format(label=cypher_label(label))
            while True:
                rows = await graph.write(query, {"batch": 10_000})
                marked += int(rows[0]["marked"])
                if int(rows[0]["marked"]) < 10_000:
                    break
        await reset_cursors(graph)
        total = await _pending(services.graph)
        print(f"reembed: {marked:,} records marked; {total:,} pending")
        return await _drain(worker, graph, total)
    finally:
        await close_services(services)


async def _pending(graph: GraphExecutor) -> int:
    rows = await graph.read(pending_query(all_clients=True))
    return int(rows[0]["pending"]) if rows else 0


async def _drain(worker: EmbeddingWorker, graph: GraphExecutor, total: int) -> int:
    await worker.load_cursors()
    worker.backlog_batch = worker.batch  # nothing else is waiting: drain in full batches
    started = time.monotonic()
    while await worker.run_cycle():
        done = worker.status.indexed_total
        rate = done / max(time.monotonic() - started, 1e-9)
        print(f"\r  embedded {done:,}/{total:,} ({rate:,.0f}/s)", end="", file=sys.stderr)
    left = await _pending(graph)
    print(
        f"\nreembed: {worker.status.indexed_total:,} embedded in "
        f"{time.monotonic() - started:.1f} s; {left:,} still pending"
    )
    return 0 if left == 0 else 1


async def run_worker(settings: Settings) -> int:
    """The embedding worker as its own process (set AGENTMEM_EMBEDDING_WORKER_IN_PROCESS=false
    for the API processes)."""
    services = await open_services(settings)
    job_metrics = start_job_metrics(services, None)  # its numbers in /metrics of the API's
    try:
        print("embedding worker running; Ctrl-C stops it", file=sys.stderr)
        await services.indexer.run_forever()
    except asyncio.CancelledError:
        pass
    finally:
        await stop_job_metrics(job_metrics, services, None)
        await close_services(services)
    return 0
