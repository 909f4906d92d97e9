"""Outages of Neo4j and S3 (finding 6, 7 and 4 of issue 11), each through a TCP proxy between an
API of its own and the shared servers (which are never stopped): every request answers HTTP 503
UNAVAILABLE with a retry hint within the dependency timeout, `/readyz` answers 503 within a
second, the same process serves again once the server is back, and the access log entries whose
write fell in the outage arrive after it."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette

from app.cli.admin import create_key
from app.graph.executor import BACKGROUND_TIMEOUT_S
from app.model.enums import Role
from app.settings import Settings
from app.web.app import create_app
from app.web.readiness_checks import READY_FOR_S
from tests.integration.tcp_proxy import TcpProxy, free_port

BOUND_S = 2.0
BIG_CONTENT = {"blob": "x" * 20_000}  # above the inline limit: stored in S3 first
REMEMBER = """mutation($input: RememberInput!) { remember(input: $input) { id version } }"""
RECALL = """query($key: String!) { recallMemory(namespace: {path: ["outage"]}, key: $key) {
  id } }"""
PLAN = "query($id: ID!) { plan(id: $id) { id name } }"
CREATE_PLAN = "mutation($input: CreatePlanInput!) { createPlan(input: $input) { id } }"
VIEWER = "{ viewer { clientId } }"
PLAN_INPUT = {"name": "Outage week", "createdBy": "AGENT", "targetPlatforms": ["IG"]}


@dataclass
class Outage:
    url: str
    app: Starlette
    neo4j: TcpProxy
    s3: TcpProxy
    settings: Settings

    def key(self, role: Role = Role.AGENT) -> str:
        client = f"test-{uuid.uuid4().hex[:12]}"
        issued = asyncio.run(create_key(self.settings, client=client, role=role, agent_name="a"))
        return issued.secret

    def call_soon(self, callback: Callable[[], None]) -> None:
        """Run `callback` on the served app's event loop."""
        task = self.app.state.memory_background.tasks[0]
        task.get_loop().call_soon_threadsafe(callback)


@pytest.fixture(scope="module")
def outage(settings: Settings) -> Iterator[Outage]:
    neo4j = TcpProxy("127.0.0.1", settings.neo4j_bolt_port)
    s3_host, _, s3_port = settings.s3_endpoint.rpartition(":")
    s3 = TcpProxy(s3_host, int(s3_port))
    proxied = Settings(
        neo4j_uri=f"bolt://127.0.0.1:{neo4j.port}",
        s3_endpoint=s3.address,
        dependency_timeout_s=BOUND_S,
        embedding_worker_in_process=False,
        memory_sweep_interval_s=3600,
        access_log_flush_ms=60_000,  # entries wait in the buffer until a test asks for a flush
    )
    app = create_app(proxied)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the API did not start"
        time.sleep(0.05)
    yield Outage(f"http://127.0.0.1:{port}", app, neo4j, s3, settings)
    neo4j.up()
    s3.up()
    server.should_exit = True
    thread.join(timeout=15)
    neo4j.close()
    s3.close()


def post(url: str, key: str, query: str, variables: dict[str, Any] | None = None) -> Any:
    return httpx.post(
        f"{url}/graphql",
        json={"query": query, "variables": variables or {}},
        headers={"Authorization": f"Bearer {key}"},
        timeout=30,
    )


def timed(send: Callable[[], httpx.Response]) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    response = send()
    return response, time.monotonic() - started


def assert_unavailable(response: httpx.Response, elapsed: float, what: str = "") -> None:
    assert response.status_code == 503, (what, response.text)
    assert elapsed < BOUND_S + 1, f"{what} answered after {elapsed:.2f} s"
    error = response.json()["errors"][0]
    assert error["extensions"]["code"] == "UNAVAILABLE", error
    assert error["extensions"]["retryAfterSeconds"] == int(BOUND_S)
    assert response.headers["retry-after"] == str(int(BOUND_S))


def assert_not_ready_within_a_second(outage: Outage, failed: str) -> None:
    time.sleep(READY_FOR_S)  # a "ready" from before the outage is served this long (E-4)
    response, elapsed = timed(lambda: httpx.get(f"{outage.url}/readyz", timeout=10))
    assert response.status_code == 503 and elapsed < 1.0, (response.text, elapsed)
    checks = response.json()["checks"]
    assert checks[failed].startswith("error") and "details" not in response.json()


def requests_of(outage: Outage) -> dict[str, Callable[[], httpx.Response]]:
    """A write, a read (POST, and GET through strawberry's view), a read answered by a learned
    read plan, and a key the process never saw (its lookup needs Neo4j), each ready to send."""
    key = outage.key()
    plan_id = post(outage.url, key, CREATE_PLAN, {"input": PLAN_INPUT})
    plan = {"id": plan_id.json()["data"]["createPlan"]["id"]}
    for _ in range(2):  # learned, then answered by the plan
        assert post(outage.url, key, PLAN, plan).json()["data"]["plan"]["id"] == plan["id"]
    fresh = outage.key()
    memory = {"kind": "SEMANTIC", "namespace": {"path": ["outage"]}, "text": "kept"}
    get = {"query": RECALL, "variables": '{"key": "missing"}'}
    auth = {"Authorization": f"Bearer {key}"}
    return {
        "write": lambda: post(outage.url, key, REMEMBER, {"input": memory}),
        "GET (strawberry's view)": lambda: httpx.get(
            f"{outage.url}/graphql", params=get, headers=auth, timeout=30
        ),
        "read": lambda: post(outage.url, key, RECALL, {"key": "missing"}),
        "read plan": lambda: post(outage.url, key, PLAN, plan),
        "new key": lambda: post(outage.url, fresh, VIEWER),
    }


def recovered(send: Callable[[], httpx.Response], *, within_s: float = 10.0) -> float:
    """Seconds until the request is answered without an outage error."""
    started = time.monotonic()
    while True:
        response = send()
        codes = [e["extensions"]["code"] for e in response.json().get("errors") or []]
        if response.status_code == 200 and "UNAVAILABLE" not in codes:
            return time.monotonic() - started
        assert time.monotonic() - started < within_s, response.text
        time.sleep(0.2)


@pytest.mark.parametrize("failure", ["down", "stall"])
def test_neo4j_outage_answers_503_within_the_bound_and_the_process_recovers(
    outage: Outage, failure: str
) -> None:
    requests = requests_of(outage)
    getattr(outage.neo4j, failure)()
    try:
        for name, send in requests.items():
            response, elapsed = timed(send)
            assert_unavailable(response, elapsed, name)
        assert_not_ready_within_a_second(outage, "neo4j")
    finally:
        outage.neo4j.up()
    for name, send in requests.items():
        assert recovered(send) < 5, name
    assert httpx.get(f"{outage.url}/readyz", timeout=10).status_code == 200


@pytest.mark.parametrize("failure", ["down", "stall"])
def test_s3_outage_answers_503_within_the_bound_and_the_process_recovers(
    outage: Outage, failure: str
) -> None:
    key = outage.key()
    memory = {"kind": "SEMANTIC", "namespace": {"path": ["big"]}, "content": BIG_CONTENT}
    large_write = lambda: post(outage.url, key, REMEMBER, {"input": memory})  # noqa: E731
    assert "errors" not in large_write().json()
    getattr(outage.s3, failure)()
    try:
        response, elapsed = timed(large_write)
        assert_unavailable(response, elapsed)
        assert_not_ready_within_a_second(outage, "s3")
    finally:
        outage.s3.up()
    assert recovered(large_write) < 5


def test_access_log_entries_whose_write_falls_in_an_outage_arrive_after_it(
    outage: Outage, neo4j_session: Any
) -> None:
    writer = outage.app.state.memory_background.writer
    key = outage.key()
    client_id = post(outage.url, key, VIEWER).json()["data"]["viewer"]["clientId"]
    for n in range(20):
        assert post(outage.url, key, RECALL, {"key": f"k{n}"}).status_code == 200
    retried = writer.stats.retried
    outage.neo4j.down()
    try:
        outage.call_soon(writer.request_flush)
        deadline = time.monotonic() + 10
        while writer.stats.retried == retried:
            assert time.monotonic() < deadline, "the flush did not fail"
            time.sleep(0.05)
    finally:
        outage.neo4j.up()
    deadline = time.monotonic() + 15
    query = "MATCH (e:AccessLogEntry {client_id: $c, operation: 'read'}) RETURN count(e) AS n"
    while neo4j_session.run(query, c=client_id).single()["n"] < 20:
        assert time.monotonic() < deadline, writer.details()
        time.sleep(0.2)
    assert neo4j_session.run(query, c=client_id).single()["n"] == 20
    assert writer.stats.failed == 0 and writer.stats.rejected == 0


THREAD = """mutation($input: CreateConversationThreadInput!) {
  createConversationThread(input: $input) { thread { id } } }"""
APPEND_EVENTS = """mutation($events: [AppendConversationEventInput!]!) {
  appendConversationEvents(events: $events) { appended } }"""
START_EPISODE = """mutation { startEpisode(input: {taskClass: "t", trigger: SCHEDULE}) { id } }"""
APPEND_CALLS = """mutation($id: ID!) { appendToolCalls(id: $id, entries: [{tool: "x"}]) { id } }"""


def test_a_request_whose_many_calls_each_answer_in_time_still_ends_within_one_bound(
    outage: Outage,
) -> None:
    """24 events with long text through a slow S3: their uploads go 8 at a time, each well
    within its own bound, but together three times as long as the request may take."""
    key = outage.key()
    ref = {"platform": "INSTAGRAM", "threadType": "DM", "externalThreadRef": uuid.uuid4().hex}
    thread = post(outage.url, key, THREAD, {"input": ref}).json()
    thread_id = thread["data"]["createConversationThread"]["thread"]["id"]
    events = [
        {
            "threadId": thread_id,
            "direction": "INBOUND",
            "eventType": "DM_MESSAGE",
            "externalRef": f"e{n}",
            "text": f"{n} " + "long text " * 300,
        }
        for n in range(24)
    ]
    outage.s3.slow(0.5)
    try:
        response, elapsed = timed(lambda: post(outage.url, key, APPEND_EVENTS, {"events": events}))
    finally:
        outage.s3.up()
    assert_unavailable(response, elapsed, "24 uploads")
    assert "object storage" in response.json()["errors"][0]["message"]


def test_an_s3_stall_inside_a_graph_transaction_is_named_as_object_storage(
    outage: Outage,
) -> None:
    """appendToolCalls uploads its chunk inside the episode's transaction: the answer names
    the part that did not answer, not the graph around it."""
    key = outage.key()
    episode = post(outage.url, key, START_EPISODE).json()["data"]["startEpisode"]["id"]
    outage.s3.stall()
    try:
        response, elapsed = timed(lambda: post(outage.url, key, APPEND_CALLS, {"id": episode}))
    finally:
        outage.s3.up()
    assert_unavailable(response, elapsed, "appendToolCalls")
    assert "object storage" in response.json()["errors"][0]["message"]


def test_background_jobs_use_the_long_bound_not_the_requests(outage: Outage) -> None:
    background = outage.app.state.memory_background
    services = outage.app.state.services
    for graph in (background.writer.graph, background.sweeper.graph, services.indexer.graph):
        assert graph.timeout_s == BACKGROUND_TIMEOUT_S > BOUND_S
    assert services.graph.timeout_s == BOUND_S


def test_readyz_checks_s3_on_threads_of_its_own(outage: Outage) -> None:
    """The loop's default thread pool busy (as under load): the S3 check still answers."""

    def occupy_default_pool() -> None:
        loop = asyncio.get_running_loop()
        for _ in range(40):
            loop.run_in_executor(None, time.sleep, 1.5)

    outage.call_soon(occupy_default_pool)
    time.sleep(0.1)
    response = httpx.get(f"{outage.url}/readyz", timeout=10)
    assert response.json()["checks"]["s3"] == "ok", response.text
