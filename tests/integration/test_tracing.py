"""OpenTelemetry tracing (issue 13): a request is a server span with a client span per Cypher
call beneath it, named, and no value a client sent appears in any span."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind
from starlette.testclient import TestClient

from app.cli.admin import create_key
from app.model.enums import Role
from app.settings import Settings
from app.web.app import create_app
from tests.integration.memory_helpers import RECALL_KEY, REMEMBER


def _texts(span: ReadableSpan) -> list[str]:
    """Everything a span says: its name, attribute values and events."""
    values: list[Any] = [span.name, *(span.attributes or {}).values()]
    for event in span.events:
        values += [event.name, *(event.attributes or {}).values()]
    return [str(item) for item in values]


def test_a_request_is_a_span_with_its_cypher_calls_and_no_values(settings: Settings) -> None:
    secret = f"secret-{uuid.uuid4().hex}"
    traced = settings.model_copy(
        update={"otel_enabled": True, "embedding_worker_in_process": False}
    )
    issued = asyncio.run(
        create_key(
            settings, client=f"test-{uuid.uuid4().hex[:12]}", role=Role.AGENT, agent_name="t"
        )
    )
    exporter = InMemorySpanExporter()
    headers = {"Authorization": f"Bearer {issued.secret}"}
    with TestClient(create_app(traced, span_exporter=exporter)) as client:
        variables = {"input": {"key": secret, "text": secret, "kind": "SEMANTIC"}}
        wrote = client.post(
            "/graphql", json={"query": REMEMBER, "variables": variables}, headers=headers
        )
        assert wrote.status_code == 200 and not wrote.json().get("errors"), wrote.text
        read = client.post(
            "/graphql",
            json={"query": RECALL_KEY, "variables": {"ns": None, "key": secret}},
            headers=headers,
        )
        assert read.json()["data"]["recallMemory"]["text"] == secret
    spans = exporter.get_finished_spans()  # the app's shutdown flushed them

    servers = {span.name: span for span in spans if span.kind is SpanKind.SERVER}
    assert {"POST /graphql remember", "POST /graphql recallMemory"} <= set(servers)
    for name in ("POST /graphql remember", "POST /graphql recallMemory"):
        request = servers[name]
        assert request.attributes is not None
        assert request.attributes["http.response.status_code"] == 200
        calls = [
            span
            for span in spans
            if span.parent is not None and span.parent.span_id == request.context.span_id
        ]
        assert calls, f"no Cypher span under {name}"
        for call in calls:
            assert call.kind is SpanKind.CLIENT
            assert call.attributes is not None and call.attributes["db.system"] == "neo4j"
            assert call.name and str(call.attributes["db.operation.name"]).isupper()
    assert not [text for span in spans for text in _texts(span) if secret in text]
