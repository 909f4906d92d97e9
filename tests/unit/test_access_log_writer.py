"""The access log writer against a fake graph: no entry lost to one bad entry or an outage.

The fake packs every value as the driver does (UTF-8 text, plain scalars and datetimes) and
refuses the whole batch when one value does not pack, as the driver does.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from neo4j.exceptions import Neo4jError

from app.domain.kernel.errors import Unavailable
from app.domain.memory import AccessLogWriter
from app.domain.memory.access_log_batches import MAX_TEXT, safe_entry
from app.graph.executor import GraphExecutor
from app.runtime.background import MemoryBackground


class FakeGraph:
    def __init__(self, *, outages: int = 0) -> None:
        self.outages = outages  # the next this many writes fail as if Neo4j were down
        self.rows: list[dict[str, Any]] = []
        self.calls = 0

    async def write(self, query: str, params: dict[str, Any], **_: Any) -> list[dict[str, Any]]:
        self.calls += 1
        if self.outages:
            self.outages -= 1
            raise Unavailable("the graph database is unavailable", retry_after_s=5)
        entries = params["entries"]
        for entry in entries:
            for value in entry.values():
                _pack(value)
        self.rows.extend(entries)
        return []


def _pack(value: Any) -> None:
    if isinstance(value, str):
        value.encode("utf-8")  # the driver's UnicodeEncodeError on a lone surrogate
    elif not isinstance(value, int | float | bool | datetime | type(None)):
        raise TypeError(f"values of type {type(value).__name__} are not supported")


def writer(graph: FakeGraph, **options: Any) -> AccessLogWriter:
    fake: Any = graph  # the writer only calls write()
    typed: GraphExecutor = fake
    return AccessLogWriter(typed, **options)


def entry(n: int, **values: Any) -> dict[str, Any]:
    return {
        "id": f"e{n}",
        "client_id": "c1",
        "operation": "read",
        "target_id": f"r{n}",
        "created_at": datetime.now(UTC),
    } | values


def written_ids(graph: FakeGraph) -> list[str]:
    return sorted(row["id"] for row in graph.rows)


def all_ids(count: int) -> list[str]:
    return sorted(f"e{n}" for n in range(count))


def test_a_lone_surrogate_is_replaced_and_poisons_nothing() -> None:
    graph = FakeGraph()
    log = writer(graph)
    for n in range(500):
        log.submit(entry(n, target_id="x\ud800y" if n == 7 else f"r{n}"))
    assert asyncio.run(log.flush()) == 500
    assert written_ids(graph) == all_ids(500)
    stored = next(row for row in graph.rows if row["id"] == "e7")
    assert stored["target_id"] == "x?y"
    assert log.stats.rejected == 0 and graph.calls == 1


def test_long_text_is_cut_when_submitted() -> None:
    graph = FakeGraph()
    log = writer(graph)
    log.submit(entry(0, target_id="x" * 1_000_000))
    asyncio.run(log.flush())
    assert len(graph.rows[0]["target_id"]) == MAX_TEXT


def test_a_bad_entry_is_isolated_and_rejected_while_the_rest_are_written(
    caplog: pytest.LogCaptureFixture,
) -> None:
    graph = FakeGraph()
    log = writer(graph)
    for n in range(500):
        log.submit(entry(n, detail=object() if n == 321 else "ok"))
    with caplog.at_level(logging.ERROR, logger="app.access_log"):
        assert asyncio.run(log.flush()) == 499
    assert written_ids(graph) == sorted(set(all_ids(500)) - {"e321"})
    assert log.stats.rejected == 1 and log.stats.written == 499 and log.pending == 0
    assert "e321" in caplog.text and "rejected" in caplog.text
    # halving finds one entry among 500 in about 2 log2(500) writes, not 500
    assert graph.calls < 30


def test_a_failed_flush_is_kept_and_retried_until_it_succeeds() -> None:
    graph = FakeGraph(outages=3)
    log = writer(graph, batch=100)
    for n in range(250):
        log.submit(entry(n))
    flushed = [asyncio.run(log.flush()) for _ in range(4)]
    assert flushed == [0, 0, 0, 250]
    assert written_ids(graph) == all_ids(250)
    assert log.stats.retried == 3 and log.stats.failed == 0 and log.pending == 0


def test_an_outage_while_isolating_a_bad_entry_keeps_every_unwritten_entry() -> None:
    class FailsOnThirdWrite(FakeGraph):
        async def write(self, query: str, params: dict[str, Any], **_: Any) -> list[dict[str, Any]]:
            if self.calls == 2:
                self.outages = 1
            return await super().write(query, params)

    graph = FailsOnThirdWrite()
    log = writer(graph)
    for n in range(40):
        log.submit(entry(n, detail=object() if n == 30 else "ok"))
    asyncio.run(log.flush())
    assert log.stats.retried == 1 and log.pending + len(graph.rows) == 40
    asyncio.run(log.flush())
    assert written_ids(graph) == sorted(set(all_ids(40)) - {"e30"})
    assert log.stats.rejected == 1 and log.pending == 0


def test_entries_older_than_max_age_are_counted_and_logged_as_failed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    graph = FakeGraph(outages=1_000)
    log = writer(graph, max_age_s=0.05)
    for n in range(5):
        log.submit(entry(n))
    asyncio.run(log.flush())
    time.sleep(0.1)
    log.submit(entry(5))
    with caplog.at_level(logging.ERROR, logger="app.access_log"):
        asyncio.run(log.flush())
    assert log.stats.failed == 5 and log.pending == 1
    assert "5 entries could not be written" in caplog.text and "e4" in caplog.text


def test_close_counts_and_logs_what_an_outage_keeps_from_the_graph(
    caplog: pytest.LogCaptureFixture,
) -> None:
    graph = FakeGraph(outages=1_000)
    log = writer(graph)
    for n in range(3):
        log.submit(entry(n))
    with caplog.at_level(logging.ERROR, logger="app.access_log"):
        asyncio.run(log.close())
    assert log.stats.failed == 3 and log.pending == 0
    assert "e0" in caplog.text


def test_a_full_buffer_refuses_counts_and_logs_once(caplog: pytest.LogCaptureFixture) -> None:
    graph = FakeGraph()
    log = writer(graph, queue_max=10)
    with caplog.at_level(logging.ERROR, logger="app.access_log"):
        for n in range(15):
            log.submit(entry(n))
    assert log.pending == 10 and log.stats.dropped == 5
    assert caplog.text.count("buffer full") == 1
    asyncio.run(log.flush())
    assert log.totals() == {
        "pending": 0,
        "written": 10,
        "retried": 0,
        "failed": 0,
        "rejected": 0,
        "dropped": 5,
    }


def test_backoff_grows_after_each_outage_and_resets_after_a_write() -> None:
    graph = FakeGraph(outages=3)
    log = writer(graph, flush_ms=200)
    log.submit(entry(0))
    waits = [log.backoff_s()]
    for _ in range(4):
        asyncio.run(log.flush())
        waits.append(log.backoff_s())
    assert waits == [0.2, 0.4, 0.8, 1.6, 0.2]


def test_the_background_task_retries_through_an_outage() -> None:
    async def scenario() -> FakeGraph:
        graph = FakeGraph(outages=2)
        log = writer(graph, flush_ms=10)
        task = asyncio.create_task(log.run())
        for n in range(20):
            log.submit(entry(n))
        deadline = time.monotonic() + 5
        while len(graph.rows) < 20 and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        task.cancel()
        return graph

    assert written_ids(asyncio.run(scenario())) == all_ids(20)


class HeldGraph(FakeGraph):
    """Each write waits until `release` is set (forever if it never is), as a slow or stalled
    graph does."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.writing = asyncio.Event()

    async def write(self, query: str, params: dict[str, Any], **_: Any) -> list[dict[str, Any]]:
        self.writing.set()
        await self.release.wait()
        return await super().write(query, params)


def background_with(log: AccessLogWriter) -> MemoryBackground:
    sweeper: Any = None  # stop() leaves the sweeper to its (here absent) task
    return MemoryBackground(sweeper=sweeper, writer=log, writer_task=asyncio.create_task(log.run()))


def test_shutdown_during_a_flush_lets_it_finish_and_writes_the_rest() -> None:
    async def scenario() -> tuple[HeldGraph, AccessLogWriter]:
        graph = HeldGraph()
        log = writer(graph, batch=10, flush_ms=10)
        background = background_with(log)
        for n in range(25):
            log.submit(entry(n))
        await graph.writing.wait()  # the background flush is mid-write
        stopping = asyncio.create_task(background.stop())
        await asyncio.sleep(0.05)
        graph.release.set()
        await stopping
        return graph, log

    graph, log = asyncio.run(scenario())
    assert written_ids(graph) == all_ids(25)
    assert log.stats.failed == 0 and log.pending == 0


def test_shutdown_during_a_write_that_never_ends_counts_and_logs_every_entry(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario() -> AccessLogWriter:
        graph = HeldGraph()
        log = writer(graph, batch=10, flush_ms=10, close_timeout_s=0.2)
        background = background_with(log)
        for n in range(25):
            log.submit(entry(n))
        await graph.writing.wait()
        await background.stop()  # the graph never answers: bounded all the same
        return log

    with caplog.at_level(logging.ERROR, logger="app.access_log"):
        started = time.monotonic()
        log = asyncio.run(scenario())
        assert time.monotonic() - started < 2
    # the batch being written when it was cut off is neither written nor silently gone
    assert log.stats.failed == 25 and log.stats.written == 0 and log.pending == 0
    assert "25 entries could not be written" in caplog.text and "e0" in caplog.text


def test_a_batch_written_again_after_an_unknown_outcome_merges_on_the_entry_id() -> None:
    from app.domain.memory.access_log_batches import WRITE_ENTRIES

    assert "MERGE (e:AccessLogEntry {id: entry.id})" in WRITE_ENTRIES


class RefusesWrites(FakeGraph):
    """Each write fails with `errors.pop(0)` while any are left (a server-side refusal), then
    as FakeGraph; with `poisoned`, a write holding that entry fails with `poison` each time."""

    def __init__(self, *errors: Exception, poisoned: str = "", poison: Exception | None = None):
        super().__init__()
        self.errors, self.poisoned, self.poison = list(errors), poisoned, poison

    async def write(self, query: str, params: dict[str, Any], **_: Any) -> list[dict[str, Any]]:
        if self.errors:
            self.calls += 1
            raise self.errors.pop(0)
        if self.poison is not None and any(e["id"] == self.poisoned for e in params["entries"]):
            self.calls += 1
            raise self.poison
        return await super().write(query, params)


def server_error(code: str) -> Exception:
    hydrated: Exception = Neo4jError._hydrate_neo4j(code=code, message=f"{code} (test)")
    return hydrated


@pytest.mark.parametrize(
    "error",
    [
        "Neo.DatabaseError.General.UnknownError",
        "Neo.ClientError.Database.DatabaseNotFound",
        "Neo.ClientError.Security.Forbidden",
        "Neo.ClientError.Transaction.TransactionTimedOut",
        "RuntimeError",
    ],
)
def test_a_failure_that_is_not_about_the_data_keeps_the_whole_batch_to_retry(error: str) -> None:
    failure = RuntimeError("boom") if error == "RuntimeError" else server_error(error)
    graph = RefusesWrites(failure)
    log = writer(graph)
    for n in range(500):
        log.submit(entry(n))
    assert asyncio.run(log.flush()) == 0
    assert log.stats.rejected == 0 and log.pending == 500 and log.stats.retried == 1
    assert graph.calls == 1  # not split: one entry did not cause it
    assert asyncio.run(log.flush()) == 500
    assert written_ids(graph) == all_ids(500) and log.stats.failed == 0


@pytest.mark.parametrize(
    "poison",
    [
        server_error("Neo.ClientError.Statement.TypeError"),
        server_error("Neo.ClientError.Schema.ConstraintValidationFailed"),
        OverflowError("Integer out of range"),
    ],
    ids=["cypher-type", "constraint", "overflow"],
)
def test_a_refusal_about_the_data_isolates_the_entry(poison: Exception) -> None:
    graph = RefusesWrites(poisoned="e77", poison=poison)
    log = writer(graph)
    for n in range(200):
        log.submit(entry(n))
    assert asyncio.run(log.flush()) == 199
    assert written_ids(graph) == sorted(set(all_ids(200)) - {"e77"})
    assert log.stats.rejected == 1 and log.pending == 0 and log.stats.retried == 0


def test_text_inside_lists_and_maps_is_made_safe_and_cut() -> None:
    cleaned = safe_entry(
        {"tags": ["ok", "x\ud800y", ["z" * 5_000]], "detail": {"k\udfff": ("a\ud800",)}}
    )
    assert cleaned["tags"][:2] == ["ok", "x?y"]
    assert len(cleaned["tags"][2][0]) == MAX_TEXT
    assert cleaned["detail"] == {"k?": ["a?"]}
