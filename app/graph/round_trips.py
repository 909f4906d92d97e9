"""Cypher calls counted and timed per request (the `cypherRoundTrips` response extension and the
request metrics), each one a client span when tracing is on (app/runtime/telemetry.py)."""

from __future__ import annotations

import time
from contextvars import ContextVar
from dataclasses import dataclass
from types import TracebackType

from opentelemetry.trace import Span, SpanKind, StatusCode, Tracer, get_current_span


@dataclass(slots=True)
class RoundTrips:
    """Cypher round trips made, and the time spent in them, while answering one request.
    `parent`: the count of the whole request at the edge, which a count started for the GraphQL
    execution (the response extension) feeds as well."""

    count: int = 0
    seconds: float = 0.0
    parent: RoundTrips | None = None

    def add(self, seconds: float) -> None:
        self.count += 1
        self.seconds += seconds
        if self.parent is not None:
            self.parent.add(seconds)


_round_trips: ContextVar[RoundTrips | None] = ContextVar("round_trips", default=None)
# Set while tracing is on: a module global, so that off costs one test per call.
_tracer: Tracer | None = None


def start_counting() -> RoundTrips:
    """Begin a fresh round-trip count for the current request (task-local); a count already
    running (the request's, at the edge) goes on receiving every call as well. One level at
    most: counts started one after another in a context must not grow a chain."""
    current = _round_trips.get()
    counter = RoundTrips(
        parent=current if current is None or current.parent is None else current.parent
    )
    _round_trips.set(counter)
    return counter


def trace_cypher(tracer: Tracer | None) -> None:
    """Every Cypher call becomes a span of `tracer` (None: tracing off)."""
    global _tracer  # noqa: PLW0603 - one process-wide switch, read on every call
    _tracer = tracer


def query_name(query: str) -> str:
    """A span's name: the query's first line. Values are always parameters, never in the text,
    so no value can show (and the whole text, which may be long, stays out)."""
    return query.lstrip().split("\n", 1)[0][:80].strip()


class cypher_call:  # noqa: N801 - used as a statement: `with cypher_call(query):`
    """One Cypher round trip: counted for the request, timed, and traced when tracing is on.
    A class rather than a generator context manager: it wraps every query."""

    __slots__ = ("_query", "_started", "_span")

    def __init__(self, query: str) -> None:
        self._query = query
        self._span: Span | None = None

    def __enter__(self) -> None:
        # Only inside a traced request: background jobs' polling would make a root trace of
        # every idle look.
        if _tracer is not None and get_current_span().is_recording():
            self._span = _start_span(_tracer, self._query)
        self._started = time.perf_counter()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        elapsed = time.perf_counter() - self._started
        counter = _round_trips.get()
        if counter is not None:
            counter.add(elapsed)
        if self._span is not None:
            span, self._span = self._span, None
            if error is not None:
                # The type only: a driver's message may quote a value (a constraint's key).
                span.set_status(StatusCode.ERROR, type(error).__name__)
            span.end()


def _start_span(tracer: Tracer, query: str) -> Span:
    """A child of the current span (the request's); nothing nests under it, so it is never
    made the current one."""
    name = query_name(query)
    attributes = {"db.system": "neo4j", "db.operation.name": name.split(" ", 1)[0].upper()}
    return tracer.start_span(name, kind=SpanKind.CLIENT, attributes=attributes)
