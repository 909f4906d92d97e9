"""Staged uploads settled by the write's real outcome (review O2 of issue 11): the executor's
transaction logic against a small fake driver (which can refuse, lose a commit, or retry an
attempt), and a fake object store (a dict). tests/integration/test_staged_commit.py has the real
servers."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest
from minio import Minio
from minio.error import S3Error
from neo4j.exceptions import ServiceUnavailable

from app.artifacts.staged import staged_uploads
from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import NotFound, Unavailable
from app.domain.kernel.principal import Principal
from app.graph.executor import GraphExecutor, Tx
from app.model.enums import Role

OWNER = Principal(client_id="c1", role=Role.AGENT, key_id="k1")
PROMPT = ("prompts", "p1", "prompt.txt")


class FakeStore(ArtifactStore):
    """A bucket in a dict; `down` makes every call an outage. `modified`: when each object was
    last uploaded (an object put in `objects` directly counts as uploaded long ago)."""

    def __init__(self) -> None:
        super().__init__(Minio("127.0.0.1:9"), bucket="b", retry_after_s=1)
        self.objects: dict[str, bytes] = {}
        self.modified: dict[str, datetime] = {}
        self.down = False

    async def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self.down:
            raise Unavailable("object storage is unavailable", retry_after_s=1)
        if fn == self.client.put_object:
            self.objects[args[1]] = args[2].read()
            self.modified[args[1]] = datetime.now(UTC)
        elif fn == self.client.remove_object:
            self.objects.pop(args[1], None)
        elif fn == self.client.stat_object:
            return self._stat(args[1])
        return None

    def _stat(self, key: str) -> SimpleNamespace:
        if key not in self.objects:
            raise S3Error(None, "NoSuchKey", "not found", key, "r", "h")  # type: ignore[arg-type]
        return SimpleNamespace(
            last_modified=self.modified.get(key, datetime(2000, 1, 1, tzinfo=UTC))
        )


def refused() -> ServiceUnavailable:
    try:
        raise ConnectionRefusedError(111, "Connection refused")
    except ConnectionRefusedError as error:
        try:
            raise ServiceUnavailable("Couldn't connect") from error
        except ServiceUnavailable as wrapped:
            return wrapped


class FakeDriver:
    """execute_write as the driver runs it: `before` fails before the work (a refused
    connection), `attempts` runs the work that many times (the driver retrying), `commit`
    fails after the last run (the connection lost while committing)."""

    def __init__(
        self,
        *,
        before: BaseException | None = None,
        attempts: int = 1,
        commit: BaseException | None = None,
    ) -> None:
        self.before, self.attempts, self.commit = before, attempts, commit
        self.execute_query_bookmark_manager = None  # what sessions share (no causal chain here)

    @asynccontextmanager
    async def session(self, **_: Any) -> AsyncIterator[FakeDriver]:
        yield self

    async def execute_write(self, unit: Callable[[Any], Awaitable[Any]]) -> Any:
        if self.before is not None:
            raise self.before
        for _ in range(self.attempts):
            result = await unit(object())
        if self.commit is not None:
            raise self.commit
        return result


def executor(driver: FakeDriver) -> GraphExecutor:
    fake: Any = driver
    return GraphExecutor(fake, database="neo4j", timeout_s=1)


async def upload_then_write(store: FakeStore, graph: GraphExecutor, *, shared: bool = False) -> Any:
    """The shape of every staged write: upload, then the transaction that points at it."""

    async def work(tx: Tx) -> str:
        return "node"

    async with staged_uploads(store, OWNER, shared=shared) as uploads:
        await uploads.put(PROMPT, b"text", content_type="text/plain")
        return await graph.in_transaction(work)


def test_a_write_refused_a_connection_certainly_did_not_commit_and_its_objects_go() -> None:
    store = FakeStore()
    with pytest.raises(Unavailable):
        asyncio.run(upload_then_write(store, executor(FakeDriver(before=refused()))))
    assert store.objects == {} and store.orphans.pending == 0


def test_a_commit_lost_on_the_way_keeps_the_objects_for_reconciliation(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = FakeStore()
    lost = ServiceUnavailable("Failed to read from defunct connection")
    with caplog.at_level(logging.WARNING, logger="app.artifacts"), pytest.raises(Unavailable):
        asyncio.run(upload_then_write(store, executor(FakeDriver(commit=lost))))
    assert list(store.objects) == ["client/c1/prompts/p1/prompt.txt"]
    assert store.orphans.pending == 1 and store.orphans.stats.queued == 1
    assert "outcome is unknown" in caplog.text and "prompt.txt" in caplog.text


def test_an_error_inside_the_write_removes_the_objects() -> None:
    store = FakeStore()

    async def scenario() -> None:
        async def work(tx: Tx) -> None:
            raise NotFound("asset gone")

        async with staged_uploads(store, OWNER) as uploads:
            await uploads.put(PROMPT, b"text", content_type="text/plain")
            await executor(FakeDriver()).in_transaction(work)

    with pytest.raises(NotFound):
        asyncio.run(scenario())
    assert store.objects == {}


def keyed_create(store: FakeStore, driver: FakeDriver, *, after: Exception | None = None) -> Any:
    """An idempotent create's shape: the staged write runs inside the key's claim transaction,
    which goes on (records the result) after the staged block has ended."""
    graph = executor(driver)

    async def claim(tx: Tx) -> str:
        async with staged_uploads(store, OWNER) as uploads:
            stored = await uploads.put(PROMPT, b"text", content_type="text/plain")
        if after is not None:
            raise after
        return stored.uri

    return asyncio.run(graph.in_transaction(claim))


def test_a_claim_transaction_failing_after_the_staged_block_removes_its_objects() -> None:
    store = FakeStore()
    with pytest.raises(ValueError):
        keyed_create(store, FakeDriver(), after=ValueError("result does not encode"))
    assert store.objects == {}


def test_a_claim_transaction_whose_commit_is_lost_leaves_its_objects_unresolved() -> None:
    store = FakeStore()
    with pytest.raises(Unavailable):
        keyed_create(store, FakeDriver(commit=ServiceUnavailable("defunct connection")))
    assert len(store.objects) == 1 and store.orphans.pending == 1


def test_each_attempt_the_driver_retried_has_its_objects_removed() -> None:
    store = FakeStore()
    uploaded: list[str] = []

    async def scenario() -> None:
        async def claim(tx: Tx) -> None:
            async with staged_uploads(store, OWNER) as uploads:
                parts = ("prompts", f"p{len(uploaded)}", "prompt.txt")
                uploaded.append((await uploads.put(parts, b"x", content_type="text/plain")).key)

        await executor(FakeDriver(attempts=3)).in_transaction(claim)

    asyncio.run(scenario())
    assert len(uploaded) == 3
    assert list(store.objects) == [uploaded[-1]]  # only the committed attempt's object


def test_shared_objects_of_a_failed_write_wait_for_the_reference_check() -> None:
    store = FakeStore()
    with pytest.raises(Unavailable):
        asyncio.run(upload_then_write(store, executor(FakeDriver(before=refused())), shared=True))
    assert len(store.objects) == 1  # another version may point at the same content
    assert store.orphans.pending == 1


def test_an_upload_that_failed_and_whose_removal_fails_is_reconciled_later() -> None:
    store = FakeStore()
    store.down = True

    async def scenario() -> None:
        async with staged_uploads(store, OWNER) as uploads:
            await uploads.put(PROMPT, b"text", content_type="text/plain")

    with pytest.raises(Unavailable):
        asyncio.run(scenario())
    # the put may have stored the object before the connection failed
    assert store.orphans.pending == 1


def test_a_successful_write_keeps_its_objects_and_queues_nothing() -> None:
    store = FakeStore()
    assert asyncio.run(upload_then_write(store, executor(FakeDriver()))) == "node"
    assert len(store.objects) == 1 and store.orphans.pending == 0
