"""Neo4j and S3 clients against a port nobody listens on (a killed server: refused) and a port
that accepts and never answers (an unreachable one): `Unavailable` within the bound, and the
HTTP answer that carries it. No servers needed; tests/integration/test_outages.py has the rest.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from neo4j import AsyncGraphDatabase

from app.api.errors import http_status, retry_after, unavailable_body
from app.artifacts.store import ArtifactStore, make_client
from app.domain.kernel.errors import Unavailable
from app.domain.kernel.principal import Principal
from app.graph.executor import GraphExecutor, driver_timeouts
from app.model.enums import Role
from app.request_deadline import call_deadline, deadline_paused, request_deadline
from app.settings import Settings
from app.web.middleware import RequestEdge

BOUND_S = 0.5
OWNER = Principal(client_id="c1", role=Role.AGENT, key_id="k1")


@pytest.fixture
def refusing_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed again: connections are refused


@pytest.fixture
def silent_port() -> Iterator[int]:
    """Listens (the kernel completes the handshake) but never accepts, reads or answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        yield int(sock.getsockname()[1])


def unavailable_within(call: Callable[[], Awaitable[Any]], bound_s: float) -> Unavailable:
    async def attempt() -> Unavailable:
        with pytest.raises(Unavailable) as raised:
            await call()
        return raised.value

    started = time.monotonic()
    error = asyncio.run(attempt())
    assert time.monotonic() - started < bound_s
    return error


def graph_on(
    port: int, use: Callable[[GraphExecutor], Awaitable[Any]]
) -> Callable[[], Awaitable[Any]]:
    """`use` of an executor (bounded as the API's) whose driver points at the port."""

    async def call() -> Any:
        driver = AsyncGraphDatabase.driver(
            f"bolt://127.0.0.1:{port}", auth=("neo4j", "x"), **driver_timeouts(BOUND_S)
        )
        try:
            return await use(GraphExecutor(driver, database="neo4j", timeout_s=BOUND_S))
        finally:
            await driver.close()

    return call


async def read(graph: GraphExecutor) -> Any:
    return await graph.read("RETURN 1 AS ok")


async def transaction(graph: GraphExecutor) -> Any:
    async def work(tx: Any) -> Any:
        return await tx.run("CREATE (n:Never) RETURN n")

    return await graph.in_transaction(work)


@pytest.mark.parametrize("use", [read, transaction])
def test_a_refusing_neo4j_is_unavailable_within_the_bound(
    refusing_port: int, use: Callable[[GraphExecutor], Awaitable[Any]]
) -> None:
    error = unavailable_within(graph_on(refusing_port, use), BOUND_S + 1)
    assert error.code == "UNAVAILABLE" and error.details == {"retryAfterSeconds": 1}


@pytest.mark.parametrize("use", [read, transaction])
def test_a_silent_neo4j_is_unavailable_within_the_bound(
    silent_port: int, use: Callable[[GraphExecutor], Awaitable[Any]]
) -> None:
    unavailable_within(graph_on(silent_port, use), BOUND_S + 1)


def store_on(port: int) -> ArtifactStore:
    settings = Settings(s3_endpoint=f"127.0.0.1:{port}", dependency_timeout_s=BOUND_S)
    return ArtifactStore(make_client(settings), bucket="agentmem", retry_after_s=3)


@pytest.mark.parametrize("port", ["refusing_port", "silent_port"])
def test_an_unreachable_s3_is_unavailable_within_the_bound(
    port: str, request: pytest.FixtureRequest
) -> None:
    store = store_on(request.getfixturevalue(port))
    put = lambda: store.put(OWNER, ("a.txt",), b"x", content_type="text/plain")  # noqa: E731
    # connect, then one read: each bounded (a silent server accepts the connection)
    error = unavailable_within(put, 2 * BOUND_S + 1)
    assert error.details == {"retryAfterSeconds": 3}
    unavailable_within(lambda: store.get(OWNER, "s3://agentmem/client/c1/a.txt"), 2 * BOUND_S + 1)


def test_an_outage_answers_503_with_retry_after_and_anything_else_200() -> None:
    down = unavailable_body(Unavailable("object storage is unavailable", retry_after_s=4))
    assert down == {
        "errors": [
            {
                "message": "object storage is unavailable",
                "extensions": {"code": "UNAVAILABLE", "retryAfterSeconds": 4},
            }
        ]
    }
    assert http_status(down) == (503, [(b"retry-after", b"4")])
    partial = {"data": {"a": 1}, "errors": [{"message": "x", "extensions": {"code": "NOT_FOUND"}}]}
    assert http_status(partial) == (200, [])
    assert http_status({"data": {"a": 1}}) == (200, [])
    assert retry_after([partial, down, {"errors": down["errors"] * 2}]) == 4


def test_calls_made_under_one_request_deadline_end_within_it_all_together(
    silent_port: int,
) -> None:
    """Three graph reads and three S3 reads in a row against servers that never answer: each
    alone would wait its own bound (BOUND_S; S3 connect + read), all six within the deadline."""
    deadline_s = 0.8
    store = store_on(silent_port)

    async def several_calls(graph: GraphExecutor) -> int:
        failed = 0
        with request_deadline(deadline_s):
            for _ in range(3):
                with pytest.raises(Unavailable):
                    await graph.read("RETURN 1 AS ok")
                with pytest.raises(Unavailable):
                    await store.get(OWNER, "s3://agentmem/client/c1/a.txt")
                failed += 2
        return failed

    started = time.monotonic()
    assert asyncio.run(graph_on(silent_port, several_calls)()) == 6
    elapsed = time.monotonic() - started
    assert elapsed < deadline_s + 0.5, f"{elapsed:.2f} s for six calls"


def test_body_arrival_does_not_count_against_the_deadline() -> None:
    async def scenario() -> float:
        seen: list[float] = []

        async def app(scope: Any, receive: Any, send: Any) -> None:
            before = call_deadline(None)
            await receive()
            after = call_deadline(None)
            assert before is not None and after is not None
            seen.append(after - before)

        async def slow_body() -> dict[str, Any]:
            await asyncio.sleep(0.3)
            return {"type": "http.request", "body": b"{}", "more_body": False}

        async def send(message: Any) -> None:
            pass

        edge = RequestEdge(app, max_body_bytes=1_000, body_timeout_s=5.0, deadline_s=1.0)
        scope = {"type": "http", "method": "POST", "path": "/", "headers": []}
        await edge(scope, slow_body, send)
        return seen[0]

    assert asyncio.run(scenario()) >= 0.25  # pushed back by the time the body took


def test_our_own_cpu_work_does_not_count_against_the_deadline() -> None:
    """A query embedding (or the model's first load) is not a wait on Neo4j or S3."""

    async def scenario() -> tuple[float, float]:
        with request_deadline(1.0):
            before = call_deadline(None)
            with deadline_paused():
                await asyncio.sleep(0.3)
            after = call_deadline(None)
        assert before is not None and after is not None
        return before, after

    before, after = asyncio.run(scenario())
    assert after - before >= 0.25
