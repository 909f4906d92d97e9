"""Many processes, one graph (issue 13): two API processes and two `embed-worker` processes, as
production runs them (`python -m app serve` / `embed-worker` subprocesses), over the real Neo4j
and S3. Records written through both APIs are each embedded once and none is skipped; a worker
killed mid-batch leaves claims that expire and are taken; the sweeper runs once per interval
across both APIs; a read one API has planned sees a write made through the other at once.

The database is shared with whatever else runs: other processes' workers may embed some of these
records too, which changes nothing asserted here (each record's `embed_count`, claims, turns)."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.cli.admin import create_key
from app.model.enums import Role
from app.settings import Settings
from tests.integration.conftest import Caller, _free_port
from tests.integration.search_helpers import search, wait_indexed

REPO = Path(__file__).resolve().parents[2]
SWEEP_INTERVAL_S = 1.0
CLAIM_S = 3.0
CREATE_THREAD = """mutation($input: CreateConversationThreadInput!) {
  createConversationThread(input: $input) { thread { id } } }"""
APPEND_MANY = """mutation($events: [AppendConversationEventInput!]!) {
  appendConversationEvents(events: $events) { appended } }"""
CREATE_PLAN = """mutation($input: CreatePlanInput!) { createPlan(input: $input) { id } }"""
UPDATE_PLAN = """mutation($id: ID!, $input: UpdatePlanInput!) {
  updatePlan(id: $id, input: $input) { id } }"""
GET_PLAN = "query($id: ID!) { plan(id: $id) { id name summary } }"
STATE = """
MATCH (n:ConversationEvent {client_id: $client_id})
RETURN n.id AS id, n.embed_count AS embeds, n.index_claim AS claim,
       n.indexed_version = n.updated_at AS settled, n.embedded_at AS embedded_at
"""
CLAIMED_BY = """
MATCH (n:ConversationEvent {client_id: $client_id}) WHERE n.index_claim STARTS WITH $holder
RETURN n.id AS id, n.index_claim_until AS until
"""


@dataclass
class Cluster:
    apis: list[str]
    workers: list[subprocess.Popen[bytes]]
    alice: list[Caller]  # the same key through API A and API B
    admin_key: str


def _spawn(command: str, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    out = log.open("wb")
    return subprocess.Popen(
        [sys.executable, "-m", "app", command], cwd=REPO, env=env, stdout=out, stderr=out
    )


def _wait_healthy(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    pytest.fail(f"the API at {url} did not start:\n{log.read_text()[-3000:]}")


def _env(settings: Settings) -> dict[str, str]:
    return os.environ | {
        "AGENTMEM_NEO4J_URI": settings.neo4j_uri,
        "AGENTMEM_NEO4J_DATABASE": settings.neo4j_database,
        "AGENTMEM_EMBEDDING_WORKER_IN_PROCESS": "false",
        "AGENTMEM_MEMORY_SWEEP_INTERVAL_S": str(SWEEP_INTERVAL_S),
        "AGENTMEM_EMBEDDING_CLAIM_S": str(CLAIM_S),
        "AGENTMEM_EMBEDDING_BATCH_SIZE": "16",
        "AGENTMEM_EMBEDDING_POLL_S": "0.2",
        "AGENTMEM_LOG_LEVEL": "WARNING",
    }


@pytest.fixture(scope="module")
def cluster(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    logs, env = tmp_path_factory.mktemp("processes"), _env(settings)
    ports = [_free_port(), _free_port()]
    apis = [
        _spawn("serve", env | {"AGENTMEM_API_PORT": str(port)}, logs / f"api-{port}.log")
        for port in ports
    ]
    workers = [_spawn("embed-worker", env, logs / f"worker-{n}.log") for n in (1, 2)]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for url, api, port in zip(urls, apis, ports, strict=True):
            _wait_healthy(url, api, logs / f"api-{port}.log")
        client = f"test-many-{uuid.uuid4().hex[:10]}"
        agent = asyncio.run(create_key(settings, client=client, role=Role.AGENT, agent_name="a"))
        admin = asyncio.run(create_key(settings, client=client, role=Role.ADMIN, agent_name=None))
        alice = [
            Caller(httpx.Client(base_url=url, timeout=60), agent.secret, agent.principal.client_id)
            for url in urls
        ]
        yield Cluster(apis=urls, workers=workers, alice=alice, admin_key=admin.secret)
    finally:
        for process in [*apis, *workers]:
            process.terminate()
        for process in [*apis, *workers]:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def _thread(caller: Caller, tag: str) -> str:
    fields = {"platform": "INSTAGRAM", "threadType": "DM", "participantExternalRef": "u:1"}
    fields["externalThreadRef"] = f"ig:{tag}:{uuid.uuid4().hex[:8]}"
    thread = caller.data(CREATE_THREAD, {"input": fields})["createConversationThread"]["thread"]
    return str(thread["id"])


def _event(thread_id: str, ref: str, text: str) -> dict[str, Any]:
    return {
        "threadId": thread_id,
        "direction": "INBOUND",
        "eventType": "DM_MESSAGE",
        "externalRef": ref,
        "text": text,
    }


def _append_events(callers: list[Caller], count: int, tag: str) -> None:
    """`count` events in all, in batches of 50, through each caller in turn (a thread each)."""
    threads = [_thread(caller, f"{tag}-{n}") for n, caller in enumerate(callers)]
    for start in range(0, count, 50):
        n = (start // 50) % len(callers)
        text = "{tag} note {i}: delivery window and tracking code"
        batch = [
            _event(threads[n], f"{tag}-{i}", text.format(tag=tag, i=i))
            for i in range(start, min(start + 50, count))
        ]
        appended = callers[n].data(APPEND_MANY, {"events": batch})
        assert appended["appendConversationEvents"]["appended"] == len(batch)


def _state(neo4j_session: Any, client_id: str) -> dict[str, dict[str, Any]]:
    return {r["id"]: r.data() for r in neo4j_session.run(STATE, client_id=client_id)}


def _claimed_by(neo4j_session: Any, client_id: str, holder: str) -> dict[str, Any]:
    """Record id -> claim expiry, of the records claimed by `holder` (a prefix of it)."""
    rows = neo4j_session.run(CLAIMED_BY, client_id=client_id, holder=holder)
    return {row["id"]: row["until"] for row in rows}


def _embedded_once(state: dict[str, dict[str, Any]]) -> None:
    assert all(row["settled"] and row["claim"] is None for row in state.values())
    counts = sorted({row["embeds"] for row in state.values()})
    assert counts == [1], f"embeddings written per record: {counts} (1 each expected)"


def test_records_written_through_both_apis_are_each_embedded_once(
    cluster: Cluster, neo4j_session: Any
) -> None:
    a, b = cluster.alice
    _append_events([a, b], 200, "first")
    marker = "quokka pallet rerouted through the northern depot"
    a.data(APPEND_MANY, {"events": [_event(_thread(a, "marker"), "marker", marker)]})
    wait_indexed(b, timeout_s=90)
    state = _state(neo4j_session, a.client_id)
    assert len(state) == 201
    _embedded_once(state)
    # Written through A, found through B.
    hits = search(b, marker, mode="KEYWORD")
    assert hits and hits[0]["record"]["text"] == marker


def _stop_while_holding(
    victim: subprocess.Popen[bytes], neo4j_session: Any, client_id: str, holder: str
) -> dict[str, Any]:
    """Stops `victim` (SIGSTOP) at a moment it holds claims, and returns them; empty if it never
    held one within 20 s. Looking and then killing races the worker's write-back of its batch:
    the claims are read again once it is stopped and can no longer write."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if not _claimed_by(neo4j_session, client_id, holder):
            continue
        os.kill(victim.pid, signal.SIGSTOP)
        time.sleep(0.3)  # a write-back it had already sent is committed by now
        held = _claimed_by(neo4j_session, client_id, holder)
        if held:
            return held
        os.kill(victim.pid, signal.SIGCONT)
    return {}


def test_a_worker_killed_mid_batch_leaves_claims_that_expire_and_are_taken(
    cluster: Cluster, neo4j_session: Any
) -> None:
    a, b = cluster.alice
    victim, survivor = cluster.workers
    holder = f"{socket.gethostname()}:{victim.pid}:"  # app.graph.leases.new_holder
    # The survivor is paused while the records arrive, so the victim is the one to claim them
    # (else the faster worker may take every batch, and there is nothing to strand).
    os.kill(survivor.pid, signal.SIGSTOP)
    try:
        stranded: dict[str, Any] = {}
        # The suite's own API process runs a worker too; should it take every batch, more come.
        for round_ in range(3):
            _append_events([a, b], 200, f"second-{round_}")
            stranded = _stop_while_holding(victim, neo4j_session, a.client_id, holder)
            if stranded:
                break
        assert stranded, "the first worker never held a claim"
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait(timeout=10)
    finally:
        os.kill(survivor.pid, signal.SIGCONT)
    wait_indexed(b, timeout_s=60)
    state = _state(neo4j_session, a.client_id)
    _embedded_once(state)
    # Taken by another worker only once the dead one's claim had run out.
    assert all(state[id_]["embedded_at"] >= until for id_, until in stranded.items())


def _turns(url: str, admin_key: str) -> list[datetime]:
    body = httpx.get(
        f"{url}/readyz", headers={"Authorization": f"Bearer {admin_key}"}, timeout=10
    ).json()
    job = body["details"]["schedule"]["memory-sweeper"]
    assert job["last_error"] is None and job["runs_here"] >= len(job["recent_turns"])
    return [datetime.fromisoformat(turn) for turn in job["recent_turns"]]


def test_the_sweeper_runs_once_per_interval_across_both_apis(cluster: Cluster) -> None:
    per_api = [_turns(url, cluster.admin_key) for url in cluster.apis]
    turns = sorted(t for api in per_api for t in api)
    assert len(turns) >= 3, per_api
    gaps = [(later - earlier).total_seconds() for earlier, later in pairwise(turns)]
    # Never two runs within one interval, on the database's clock, whichever API ran them...
    assert min(gaps) >= SWEEP_INTERVAL_S * 0.999, gaps
    # ...and not far apart either: each API looks again when the next run is due.
    window = (turns[-1] - turns[0]).total_seconds()
    assert len(turns) - 1 >= window / SWEEP_INTERVAL_S / 2, (window, gaps)


def test_a_read_planned_on_one_api_sees_a_write_through_the_other_at_once(
    cluster: Cluster,
) -> None:
    """Read plans keep Cypher and completers, never data (app/api/read/plans.py)."""
    a, b = cluster.alice
    plan = {"name": "Before", "createdBy": "AGENT"}
    plan_id = a.data(CREATE_PLAN, {"input": plan})["createPlan"]["id"]
    for _ in range(3):  # learned on the first, answered by the plan after
        assert b.data(GET_PLAN, {"id": plan_id})["plan"]["name"] == "Before"
    a.data(UPDATE_PLAN, {"id": plan_id, "input": {"name": "After", "summary": "changed"}})
    assert b.data(GET_PLAN, {"id": plan_id})["plan"] == {
        "id": plan_id,
        "name": "After",
        "summary": "changed",
    }
