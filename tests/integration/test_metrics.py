"""Prometheus metrics after real requests (issue 13): requests by operation, status and code,
latency and Cypher histograms by operation; with PROMETHEUS_MULTIPROC_DIR, two API processes'
requests added up on either's /metrics."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.cli.admin import create_key
from app.model.enums import Role
from app.settings import Settings
from bench._common import serve_api
from tests.integration.conftest import Caller, _free_port
from tests.integration.memory_helpers import RECALL_KEY, remember

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(api_url: str) -> Samples:
    text = httpx.get(f"{api_url}/metrics", timeout=10).text
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


def test_series_move_with_a_read_a_write_and_an_error(api_url: str, alice: Caller) -> None:
    key = f"metrics-{uuid.uuid4().hex[:8]}"
    before = scrape(api_url)
    remember(alice, key=key, text="counted")
    read = alice.gql(RECALL_KEY, {"ns": None, "key": key}, **{"x-agentmem-roundtrips": "1"})
    missing = alice.gql(RECALL_KEY, {"ns": None, "key": f"{key}-missing"})
    invalid = alice.http.post(
        "/graphql",
        json={"query": "{ noSuchField }", "operationName": None},
        headers={"Authorization": f"Bearer {alice.key}"},
    )
    after = scrape(api_url)

    requests = "agentmem_requests_total"
    assert moved(before, after, requests, operation="remember", status="200", code="") == 1
    assert moved(before, after, requests, operation="recallMemory", status="200", code="") == 1
    code = missing["errors"][0]["extensions"]["code"]
    assert code == "NOT_FOUND"
    assert moved(before, after, requests, operation="recallMemory", status="200", code=code) == 1
    invalid_code = invalid.json()["errors"][0]["extensions"]["code"]
    invalid_labels = {"status": str(invalid.status_code), "code": invalid_code}
    assert moved(before, after, requests, operation="invalid", **invalid_labels) == 1
    for operation, count in (("remember", 1), ("recallMemory", 2)):
        for histogram in ("request_seconds", "cypher_round_trips", "cypher_seconds"):
            name = f"agentmem_{histogram}_count"
            assert moved(before, after, name, operation=operation) == count, histogram
        assert moved(before, after, "agentmem_cypher_round_trips_sum", operation=operation) >= 1
        assert moved(before, after, "agentmem_cypher_seconds_sum", operation=operation) > 0
    # The whole request's round trips: at least those its answer reports.
    reported = read["extensions"]["cypherRoundTrips"]
    trips = moved(before, after, "agentmem_cypher_round_trips_sum", operation="recallMemory")
    assert trips >= reported >= 1


def _key(settings: Settings) -> str:
    client = f"test-{uuid.uuid4().hex[:12]}"
    issued = asyncio.run(create_key(settings, client=client, role=Role.AGENT, agent_name="m"))
    return issued.secret


def _viewer(url: str, key: str) -> Any:
    headers = {"Authorization": f"Bearer {key}"}
    response = httpx.post(f"{url}/graphql", json={"query": "{ viewer { role } }"}, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def test_two_processes_add_up_in_multiprocess_mode(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    monkeypatch.setenv("AGENTMEM_EMBEDDING_WORKER_IN_PROCESS", "false")
    ports = [_free_port(), _free_port()]
    servers = [serve_api(port) for port in ports]
    try:
        urls = [f"http://127.0.0.1:{port}" for port in ports]
        key = _key(settings)
        for url, times in zip(urls, (3, 2), strict=True):
            for _ in range(times):
                _viewer(url, key)
        labels = {"operation": "viewer", "status": "200", "code": ""}
        for url in urls:
            samples = scrape(url)
            assert value(samples, "agentmem_requests_total", **labels) == 5
            assert value(samples, "agentmem_request_seconds_count", operation="viewer") == 5
            assert ("agentmem_orphaned_objects_pending", ()) in samples
        # A process that stops marks itself dead: its live gauges leave the directory.
        live = tmp_path / f"gauge_livesum_{servers[1].pid}.db"
        assert live.exists()
        servers[1].terminate()
        servers[1].wait(timeout=30)
        assert not live.exists()
        # Counters outlive the process that counted them.
        assert value(scrape(urls[0]), "agentmem_requests_total", **labels) == 5
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=30)
