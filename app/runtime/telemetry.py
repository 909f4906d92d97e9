"""OpenTelemetry tracing, off unless `otel_enabled`: a server span per HTTP request and a client
span per Cypher call (app/graph/round_trips.py), exported in batches over OTLP/HTTP to where the
SDK's standard variables say (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
OTEL_EXPORTER_OTLP_HEADERS; default http://localhost:4318).

Spans carry names (the method and route, the operation's root fields, a query's first line),
status and error codes: never a parameter or variable value.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from opentelemetry import context as otel_context
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.trace import Span, SpanKind, StatusCode, Tracer, set_span_in_context

from app.graph.round_trips import trace_cypher
from app.settings import Settings


@dataclass(frozen=True)
class Tracing:
    provider: TracerProvider
    tracer: Tracer


def start_tracing(settings: Settings, exporter: SpanExporter | None = None) -> Tracing | None:
    """The process's tracer when tracing is on (None when off); `exporter` replaces OTLP (the
    tests' in-memory one)."""
    if not settings.otel_enabled:
        return None
    service = os.environ.get("OTEL_SERVICE_NAME") or "agentmem"
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(exporter or OTLPSpanExporter()))
    tracing = Tracing(provider=provider, tracer=provider.get_tracer("agentmem"))
    trace_cypher(tracing.tracer)
    return tracing


def stop_tracing(tracing: Tracing | None) -> None:
    """Sends what is still queued, and Cypher calls are no longer traced."""
    if tracing is None:
        return
    trace_cypher(None)
    tracing.provider.shutdown()


class RequestSpan:
    """The server span of one HTTP request, current while the request runs (its Cypher spans
    are its children). Its name gets the operation once the request knows it."""

    __slots__ = ("_span", "_token", "_name")

    def __init__(self, tracer: Tracer, method: str, path: str) -> None:
        self._name = f"{method} {path}"
        attributes = {"http.request.method": method, "url.path": path}
        self._span: Span = tracer.start_span(
            self._name, kind=SpanKind.SERVER, attributes=attributes
        )
        self._token = otel_context.attach(set_span_in_context(self._span))

    def close(self, operation: str | None, status: int, code: str) -> None:
        """`operation`: the GraphQL operation's label (app/web/metrics.py), None for others."""
        span = self._span
        if operation is not None:
            span.update_name(f"{self._name} {operation}")
            span.set_attribute("graphql.operation.fields", operation)
        span.set_attribute("http.response.status_code", status)
        if code:
            span.set_attribute("error.type", code)
        if status >= 500:
            span.set_status(StatusCode.ERROR, code or str(status))
        span.end()
        otel_context.detach(self._token)
