"""Issue 13 over two API processes and the real Neo4j: a key revoked through process A while
process B serves it every few milliseconds (so B has it cached) is refused by B for every
request sent after the revocation answered, at once, and no write of such a request commits;
a write racing the revocation committed exactly when it was answered 200."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from app.model.enums import Role
from app.settings import Settings
from bench._common import free_port, serve_api
from tests.integration.conftest import Caller, new_caller

CREATE_KEY = """mutation($input: CreateApiKeyInput!) {
  createApiKey(input: $input) { secret key { id } } }"""
REVOKE = "mutation($id: ID!) { revokeApiKey(id: $id) { status } }"
CREATE_PLAN = "mutation($input: CreatePlanInput!) { createPlan(input: $input) { id } }"
VIEWER = "{ viewer { clientId } }"
WRITTEN = "MATCH (p:Plan {client_id: $client}) WHERE p.name STARTS WITH $prefix RETURN p.name"


@pytest.fixture(scope="module")
def process_b() -> Iterator[str]:
    """The API as a process of its own (its own key cache), on the suite's servers."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("AGENTMEM_EMBEDDING_WORKER_IN_PROCESS", "false")  # no model load here
        port = free_port()
        server = serve_api(port)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)


@dataclass
class Sent:
    at: float  # monotonic, just before the request left
    status: int
    name: str | None = None  # the plan a write created, if it was a write


@dataclass
class Traffic:
    """Requests with one key against one API, from threads, until stopped."""

    url: str
    secret: str
    prefix: str
    sent: list[Sent] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self, writes: bool) -> None:
        with httpx.Client(base_url=self.url, timeout=30) as http:
            auth = {"Authorization": f"Bearer {self.secret}"}
            for n in range(1_000_000):
                if self.stop.is_set():
                    return
                name = f"{self.prefix}{n}" if writes else None
                body: dict[str, Any] = {"query": VIEWER}
                if name is not None:
                    plan = {"name": name, "createdBy": "AGENT", "targetPlatforms": ["IG"]}
                    body = {"query": CREATE_PLAN, "variables": {"input": plan}}
                at = time.monotonic()
                status = http.post("/graphql", json=body, headers=auth).status_code
                self.sent.append(Sent(at, status, name))
                time.sleep(0.003)


def revoked_under_traffic(admin: Caller, process_b: str) -> tuple[Traffic, float, int]:
    """A new agent key hot on B (a reader and a writer), revoked through A. The traffic, when
    the revocation's answer arrived (monotonic), and B's status for a request sent right then."""
    made = admin.data(CREATE_KEY, {"input": {"role": "AGENT", "agentName": "racer"}})
    made = made["createApiKey"]
    traffic = Traffic(process_b, made["secret"], f"race-{uuid.uuid4().hex[:8]}-")
    threads = [threading.Thread(target=traffic.run, args=(w,)) for w in (False, True)]
    for thread in threads:
        thread.start()
    try:
        deadline = time.monotonic() + 30
        while sum(s.status == 200 for s in traffic.sent) < 40:
            assert time.monotonic() < deadline, traffic.sent[-3:]
            time.sleep(0.01)
        assert admin.data(REVOKE, {"id": made["key"]["id"]})["revokeApiKey"]["status"] == "REVOKED"
        committed = time.monotonic()
        right_after = httpx.post(
            f"{process_b}/graphql",
            json={"query": VIEWER},
            headers={"Authorization": f"Bearer {made['secret']}"},
            timeout=30,
        ).status_code
        time.sleep(0.3)
    finally:
        traffic.stop.set()
        for thread in threads:
            thread.join(timeout=30)
    return traffic, committed, right_after


def test_a_key_revoked_through_one_process_is_refused_by_another_at_once(
    settings: Settings, api_url: str, process_b: str, neo4j_session: Any
) -> None:
    admin = new_caller(settings, api_url, role=Role.ADMIN)
    traffic, committed, right_after = revoked_under_traffic(admin, process_b)
    assert right_after == 401
    before = [s for s in traffic.sent if s.at < committed]
    after = [s for s in traffic.sent if s.at > committed]
    assert any(s.status == 200 and s.name for s in before), "no write went through before"
    assert len(after) >= 20 and {s.status for s in after} == {401}, after[:5]
    assert {s.status for s in traffic.sent} <= {200, 401}
    params = {"client": admin.client_id, "prefix": traffic.prefix}
    written = {row["p.name"] for row in neo4j_session.run(WRITTEN, params)}
    answered = {s.name for s in traffic.sent if s.name and s.status == 200}
    # A write committed exactly when it was answered 200: none refused yet committed, none
    # sent after the revocation committed.
    assert written == answered
    assert not written & {s.name for s in after}
