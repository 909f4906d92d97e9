"""The background jobs' numbers as Prometheus series: embedding, the embedder, the sweeper, the
access log and orphaned objects.

The jobs keep plain totals (their `totals()`, `status`, `stats()`); `sync` copies them into
prometheus-client metrics: a counter grows by what its total grew since the last copy, a gauge
is set. That works in both modes: with PROMETHEUS_MULTIPROC_DIR set every process (API and
embed-worker) writes its own values to the shared directory, where /metrics of any of them
adds them up; so each process copies every SYNC_S seconds, and the scraping process once more
just before it answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Mapping
from typing import Any, Literal

from prometheus_client import Counter, Gauge, multiprocess

from app.domain.memory import Eviction
from app.runtime.background import MemoryBackground
from app.runtime.services import Services

MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"
# Live values a little stale are fine for a scrape every 15 s or more; a copy costs microseconds.
SYNC_S = 5.0
# Gauges by series suffix, with how processes add up: live values of the running processes are
# summed (depths) or their worst taken (lag); a dead process's last sweep still happened.
GAUGES: Mapping[str, Literal["livesum", "livemax", "max"]] = {
    "pending": "livesum",
    "queue_depth": "livesum",
    "worker_running": "livesum",
    "lag_seconds": "livemax",
    "last_run_timestamp_seconds": "max",
}
Totals = dict[str, dict[str, float]]


def multiprocess_mode() -> bool:
    return bool(os.environ.get(MULTIPROCESS_ENV))


def job_totals(services: Services, background: MemoryBackground | None) -> Totals:
    """Every job's numbers by series prefix (agentmem_<prefix>_<name>)."""
    status = services.indexer.status
    totals: Totals = {
        "embedding": {
            "indexed": status.indexed_total,
            "failed": status.failed_total,
            "lag_seconds": status.lag_seconds(),
            "worker_running": int(status.running),
            **services.embedder.stats(),  # query queue depth, batches, texts, cache hits
        },
        "orphaned_objects": dict(services.artifacts.orphans.totals()),
    }
    if background is not None:
        totals["memory_sweeper"] = _sweeper_totals(background)
        if background.writer is not None:
            totals["access_log"] = dict(background.writer.totals())
    return totals


def _sweeper_totals(background: MemoryBackground) -> dict[str, float]:
    sweeper = background.sweeper
    finished = [run.finished_at for run in sweeper.runs if run.finished_at is not None]
    totals: dict[str, float] = {"runs": sweeper.total_runs, "purged": sweeper.total_purged}
    for step in sweeper.steps:
        if isinstance(step, Eviction):  # records purged over their client's capacity
            totals["evicted"] = step.total
    if finished:
        totals["last_run_timestamp_seconds"] = max(finished).timestamp()
    return totals


class JobMetrics:
    """The series of one process, created on first sight of a total (the jobs say which)."""

    def __init__(self) -> None:
        self._metrics: dict[str, Any] = {}
        self._copied: dict[str, float] = {}

    def sync(self, totals: Totals) -> None:
        for prefix, values in totals.items():
            for name, value in values.items():
                self._copy(prefix, name, float(value))

    def _copy(self, prefix: str, name: str, value: float) -> None:
        series = f"agentmem_{prefix}_{name}"
        metric = self._metrics.get(series)
        if metric is None:
            metric = self._metrics[series] = _declare(series, f"{prefix}: {name}", name)
        if isinstance(metric, Gauge):
            metric.set(value)
            return
        grown = value - self._copied.get(series, 0.0)
        if grown > 0:
            metric.inc(grown)
            self._copied[series] = value


def _declare(series: str, what: str, name: str) -> Counter | Gauge:
    mode = GAUGES.get(name)
    if mode is not None:
        return Gauge(series, what, multiprocess_mode=mode)
    return Counter(series, what)


JOBS = JobMetrics()


async def sync_forever(services: Services, background: MemoryBackground | None) -> None:
    """Copies this process's totals every SYNC_S seconds (multi-process mode only needs it:
    otherwise the scrape reads this process's totals itself)."""
    while True:
        JOBS.sync(job_totals(services, background))
        await asyncio.sleep(SYNC_S)


def start_job_metrics(
    services: Services, background: MemoryBackground | None
) -> asyncio.Task[None] | None:
    if not multiprocess_mode():
        return None
    return asyncio.create_task(sync_forever(services, background), name="job-metrics")


async def stop_job_metrics(
    task: asyncio.Task[None] | None, services: Services, background: MemoryBackground | None
) -> None:
    """A last copy, then this process's live gauges leave the shared directory."""
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    JOBS.sync(job_totals(services, background))
    multiprocess.mark_process_dead(os.getpid())
