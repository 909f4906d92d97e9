"""Prometheus metrics of requests, and `/metrics`.

Per request (recorded by the edge, app/web/middleware.py): agentmem_requests_total by
operation, HTTP status and the first error's code; histograms of its time, its Cypher round
trips and their time, by operation. The operation is the GraphQL root fields it ran
(app/api/edge/outcome.py), "invalid" for a document that did not parse or validate, "other"
past MAX_OPERATIONS distinct names, and the route for other paths. The background jobs' series
are app/runtime/job_metrics.py.

With PROMETHEUS_MULTIPROC_DIR set (several processes on one host), /metrics answers the sum of
every process's files; process-wide totals only, no client id, so it needs no key.
"""

from __future__ import annotations

from collections.abc import Iterable

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
    multiprocess,
)
from starlette.requests import Request
from starlette.responses import Response

from app.api.edge.outcome import INVALID, Outcome
from app.graph.round_trips import RoundTrips
from app.runtime.job_metrics import JOBS, job_totals, multiprocess_mode

# A `_created` series per counter doubles the exposition for a timestamp nobody reads (and
# multi-process mode has none).
disable_created_metrics()

# Distinct operation names a process counts; clients may combine root fields freely.
MAX_OPERATIONS = 200
OTHER = "other"
LABELS = ("operation",)
REQUESTS = Counter(
    "agentmem_requests",
    "HTTP requests by operation, status and first error code.",
    ("operation", "status", "code"),
)
REQUEST_SECONDS = Histogram(
    "agentmem_request_seconds", "Time from request to the end of the response.", LABELS
)
CYPHER_ROUND_TRIPS = Histogram(
    "agentmem_cypher_round_trips",
    "Cypher round trips per request.",
    LABELS,
    buckets=(0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128),
)
CYPHER_SECONDS = Histogram(
    "agentmem_cypher_seconds", "Time per request spent in Cypher calls.", LABELS
)
Observers = tuple[Histogram, Histogram, Histogram]


class RequestMetrics:
    """The edge's recorder; `paths`: the app's routes (anything else is OTHER)."""

    def __init__(self, paths: Iterable[str]) -> None:
        self._paths = frozenset(paths)
        # The labelled children, found once: labels() costs a lock and a tuple per call.
        self._observers: dict[str, Observers] = {}
        self._counters: dict[tuple[str, int, str], Counter] = {}

    def route(self, path: str) -> str:
        """The path as a label: one of the app's routes, else OTHER (any path may be asked)."""
        return path if path in self._paths else OTHER

    def operation(self, outcome: Outcome, path: str) -> str:
        if outcome.operation is None:
            return self.route(path)
        known = outcome.operation in self._observers or outcome.operation == INVALID
        if known or len(self._observers) < MAX_OPERATIONS:
            return outcome.operation
        return OTHER

    def record(
        self, operation: str, status: int, code: str, seconds: float, trips: RoundTrips
    ) -> None:
        observers = self._observers.get(operation)
        if observers is None:
            observers = self._observers[operation] = (
                REQUEST_SECONDS.labels(operation),
                CYPHER_ROUND_TRIPS.labels(operation),
                CYPHER_SECONDS.labels(operation),
            )
        counter = self._counters.get((operation, status, code))
        if counter is None:
            counter = self._counters[(operation, status, code)] = REQUESTS.labels(
                operation, str(status), code
            )
        counter.inc()
        observers[0].observe(seconds)
        observers[1].observe(trips.count)
        observers[2].observe(trips.seconds)


def _registry() -> CollectorRegistry:
    if not multiprocess_mode():
        return REGISTRY
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)  # every process's files, added up
    return registry


async def metrics(request: Request) -> Response:
    """This process's job totals copied first, so that they are current."""
    state = request.app.state
    JOBS.sync(job_totals(state.services, getattr(state, "memory_background", None)))
    return Response(generate_latest(_registry()), media_type=CONTENT_TYPE_LATEST)
