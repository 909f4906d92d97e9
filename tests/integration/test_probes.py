"""`/readyz` and `/metrics` without a key show no per-client data (issue 11, finding 9): the
readiness status and checks, and process-wide totals; an admin key also sees the details."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families

from app.model.enums import Role
from app.settings import Settings
from tests.integration.conftest import Caller, new_caller

REQUEST_LABELS = {"operation", "status", "code", "le"}
RECALL = """query { recallMemory(namespace: {path: ["probe"]}, key: "missing") { id } }"""


def bearer(caller: Caller) -> dict[str, str]:
    return {"Authorization": f"Bearer {caller.key}"}


def test_readyz_shows_status_and_checks_only_unless_an_admin_asks(
    settings: Settings, api_url: str, alice: Caller
) -> None:
    admin = new_caller(settings, api_url, role=Role.ADMIN)
    bare = httpx.get(f"{api_url}/readyz")
    as_agent = httpx.get(f"{api_url}/readyz", headers=bearer(alice))
    as_admin = httpx.get(f"{api_url}/readyz", headers=bearer(admin))
    for response in (bare, as_agent, as_admin):
        assert response.status_code == 200
        assert response.json()["checks"] == {"neo4j": "ok", "s3": "ok"}
    assert set(bare.json()) == {"status", "checks"}
    assert set(as_agent.json()) == {"status", "checks"}
    details = as_admin.json()["details"]
    assert {"embedding", "memory_sweeper", "access_log"} <= set(details)
    unknown = httpx.get(f"{api_url}/readyz", headers={"Authorization": "Bearer am_nope"})
    assert set(unknown.json()) == {"status", "checks"}


def test_metrics_are_process_wide_totals_without_client_ids(api_url: str, alice: Caller) -> None:
    alice.gql(RECALL)  # an access log entry of alice's client
    text = httpx.get(f"{api_url}/metrics").text
    assert "agentmem_embedding_indexed_total" in text
    assert "agentmem_access_log_written_total" in text
    assert "agentmem_access_log_dropped_total" in text
    assert alice.client_id not in text
    # Labelled by what the request was (issue 13), never by who sent it (the client library's
    # own process and GC series aside).
    ours = [f for f in text_string_to_metric_families(text) if f.name.startswith("agentmem_")]
    assert ours
    for family in ours:
        for sample in family.samples:
            assert set(sample.labels) <= REQUEST_LABELS, f"a per-something series: {sample}"
