"""Query embeddings (app/retrieval/query_batcher.py, encode_pool.py, embedder.py) with a fake
model: concurrent texts share a model call within a bounded wait, errors and cancellation,
the LRU cache, and queries overtaking the embedding worker's record chunks."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, TypeVar

import pytest

from app.retrieval.embedder import Embedder
from app.retrieval.encode_pool import QUERY, RECORD, EncodePool
from app.retrieval.query_batcher import QueryBatcher

T = TypeVar("T")
SAFETY_S = 10.0  # only so that a broken batcher fails instead of hanging


class FakeEncode:
    """Records each call's texts; a text's vector is [its length, its number of words]."""

    def __init__(self, fail_times: int = 0) -> None:
        self.calls: list[list[str]] = []
        self.fail_times = fail_times
        self.gate = threading.Event()
        self.gate.set()
        self.entered = threading.Event()
        self.running = self.most_running = 0
        self._lock = threading.Lock()

    def __call__(self, texts: list[str]) -> list[list[float]]:
        with self._lock:
            self.calls.append(list(texts))
            self.running += 1
            self.most_running = max(self.most_running, self.running)
        self.entered.set()
        self.gate.wait(SAFETY_S)
        with self._lock:
            self.running -= 1
        if self.fail_times:
            self.fail_times -= 1
            raise ValueError("model refused the batch")
        return [vector(text) for text in texts]


def vector(text: str) -> list[float]:
    return [float(len(text)), float(len(text.split()))]


def batcher(
    encode: FakeEncode, *, wait_s: float = 0.0, max_batch: int = 64, cache_size: int = 0
) -> QueryBatcher:
    return QueryBatcher(
        EncodePool(1),
        encode,
        model_name="fake",
        wait_s=wait_s,
        max_batch=max_batch,
        cache_size=cache_size,
    )


def run(scenario: Callable[[], Awaitable[T]]) -> T:
    async def bounded() -> T:
        return await asyncio.wait_for(scenario(), SAFETY_S)

    return asyncio.run(bounded())


async def until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.001)


def test_concurrent_texts_share_one_model_call() -> None:
    encode = FakeEncode()
    texts = [f"query number {n}" + " word" * n for n in range(12)]
    queries = batcher(encode, wait_s=0.05)

    async def scenario() -> list[list[float]]:
        return await queries.embed(texts)

    assert run(scenario) == [vector(text) for text in texts]
    assert encode.calls == [texts]
    assert (queries.counts.batches_total, queries.counts.texts_total) == (1, 12)


def test_callers_arriving_within_the_wait_join_the_batch_and_a_full_batch_goes_at_once() -> None:
    encode = FakeEncode()
    queries = batcher(encode, wait_s=SAFETY_S * 10, max_batch=5)  # only fullness ends the wait

    async def scenario() -> list[list[float]]:
        calls = []
        for n in range(5):
            calls.append(asyncio.create_task(queries.vector(f"text {n}")))
            await asyncio.sleep(0.005)
        return list(await asyncio.gather(*calls))

    assert run(scenario) == [vector(f"text {n}") for n in range(5)]
    assert encode.calls == [[f"text {n}" for n in range(5)]]


def test_a_lone_text_is_answered_after_the_wait() -> None:
    encode = FakeEncode()
    wait_s = 0.05
    queries = batcher(encode, wait_s=wait_s, max_batch=64)

    async def scenario() -> tuple[list[float], float]:
        started = time.perf_counter()
        found = await queries.vector("alone")
        return found, time.perf_counter() - started

    found, elapsed = run(scenario)
    assert found == vector("alone")
    assert encode.calls == [["alone"]]
    assert elapsed >= wait_s  # it did wait for company, and then went on its own
    assert queries.queue_depth == 0


def test_no_model_call_takes_more_than_max_batch_texts() -> None:
    encode = FakeEncode()
    queries = batcher(encode, max_batch=4)
    texts = [f"text {n}" for n in range(10)]

    async def scenario() -> list[list[float]]:
        return await queries.embed(texts)

    assert run(scenario) == [vector(text) for text in texts]
    assert [len(call) for call in encode.calls] == [4, 4, 2]
    assert [text for call in encode.calls for text in call] == texts


def test_an_error_reaches_every_caller_of_the_batch_and_the_next_batch_works() -> None:
    encode = FakeEncode(fail_times=1)
    queries = batcher(encode, cache_size=8)

    async def scenario() -> tuple[list[Any], list[float]]:
        failed = await asyncio.gather(
            *(queries.vector(f"t{n}") for n in range(5)), return_exceptions=True
        )
        return failed, await queries.vector("t0")

    failed, retried = run(scenario)
    assert all(isinstance(error, ValueError) for error in failed), failed
    assert len(encode.calls) == 2 and len(encode.calls[0]) == 5  # one failed call, one retry
    assert retried == vector("t0")


def test_a_cancelled_caller_leaves_the_batch_to_the_others() -> None:
    encode = FakeEncode()
    encode.gate.clear()
    queries = batcher(encode)

    async def scenario() -> list[Any]:
        calls = [asyncio.create_task(queries.vector(f"text {n}")) for n in range(3)]
        await until(encode.entered.is_set)
        calls[0].cancel()
        encode.gate.set()
        return list(await asyncio.gather(*calls, return_exceptions=True))

    first, *others = run(scenario)
    assert isinstance(first, asyncio.CancelledError)
    assert others == [vector("text 1"), vector("text 2")]
    assert len(encode.calls) == 1


def test_a_cancelled_caller_does_not_free_its_thread_before_the_model_is_done() -> None:
    encode = FakeEncode()
    encode.gate.clear()
    pool = EncodePool(1)

    async def scenario() -> list[list[list[float]]]:
        first = asyncio.create_task(pool.run(0, lambda: encode(["first"])))
        await until(encode.entered.is_set)
        first.cancel()
        second = asyncio.create_task(pool.run(0, lambda: encode(["second"])))
        await until(lambda: pool.queued == 1)  # not started while "first" still runs
        encode.gate.set()
        return [await second]

    assert run(scenario) == [[vector("second")]]
    assert encode.most_running == 1


def test_repeated_texts_come_from_the_cache_which_keeps_the_most_recent() -> None:
    encode = FakeEncode()
    queries = batcher(encode, cache_size=2)

    async def scenario() -> None:
        for text in ("a", "bb", "a", "ccc", "bb", "a"):
            assert await queries.vector(text) == vector(text)

    run(scenario)
    # "a" is found once; "ccc" then pushes out "bb" (least recently used), "bb" pushes out "a".
    assert encode.calls == [["a"], ["bb"], ["ccc"], ["bb"], ["a"]]
    assert queries.counts.cache_hits_total == 1
    assert len(queries.cache) == 2


def test_identical_texts_in_flight_share_one_computation_even_without_a_cache() -> None:
    encode = FakeEncode()
    queries = batcher(encode, cache_size=0)

    async def scenario() -> list[list[float]]:
        together = await queries.embed(["same"] * 5)
        return together + [await queries.vector("same")]

    assert run(scenario) == [vector("same")] * 6
    assert encode.calls == [["same"], ["same"]]  # the later call was not cached
    assert queries.counts.cache_hits_total == 4


def test_one_clients_cached_vectors_are_never_anothers() -> None:
    encode = FakeEncode()
    queries = batcher(encode, cache_size=8)

    async def scenario() -> None:
        await queries.vector("secret plan", scope="client-a")
        await queries.vector("secret plan", scope="client-b")  # computed again, not a hit
        await queries.vector("secret plan", scope="client-a")

    run(scenario)
    assert encode.calls == [["secret plan"], ["secret plan"]]
    assert queries.counts.cache_hits_total == 1


class FakeModel:
    """What the embedder uses of a SentenceTransformer; a text is cut beyond 5 words."""

    max_seq_length = 5

    def __init__(self, encode: FakeEncode) -> None:
        self._encode = encode

    def encode(self, texts: list[str], **options: Any) -> list[list[float]]:
        return self._encode(texts)

    def tokenizer(self, texts: list[str], **options: Any) -> dict[str, list[list[int]]]:
        return {"input_ids": [[0] * len(text.split()) for text in texts]}


def fake_embedder(encode: FakeEncode, **options: Any) -> Embedder:
    embedder = Embedder(model_name="fake", dimensions=2, **options)
    embedder._model = FakeModel(encode)
    return embedder


def test_waiting_queries_overtake_the_rest_of_a_long_record_batch() -> None:
    encode = FakeEncode()
    encode.gate.clear()
    embedder = fake_embedder(encode, record_chunk=2)
    records = [f"record {n}" + " word" * n for n in range(8)]

    async def scenario() -> tuple[tuple[list[list[float]], list[bool]], list[list[float]]]:
        indexing = asyncio.create_task(embedder.embed_batch(records))
        await until(encode.entered.is_set)  # the first record chunk holds the only thread
        other = asyncio.create_task(embedder.embed_batch(["another worker's record"]))
        await until(lambda: embedder.pool.queued == 1)
        searches = asyncio.create_task(embedder.embed(["query one", "query two"]))
        await until(lambda: embedder.pool.queued == 2)
        encode.gate.set()
        await other
        return await indexing, await searches

    (vectors, truncated), found = run(scenario)
    # The queries waited less than the other record chunk, and still went first.
    assert encode.calls[:3] == [
        records[:2],
        ["query one", "query two"],
        ["another worker's record"],
    ]
    assert encode.calls[3:] == [records[2:4], records[4:6], records[6:]]
    assert vectors == [vector(text) for text in records]
    assert truncated == [len(text.split()) > FakeModel.max_seq_length for text in records]
    assert True in truncated and False in truncated
    assert found == [vector("query one"), vector("query two")]
    assert embedder.stats() == {
        "queue_depth": 0,
        "query_batches_total": 1,
        "query_texts_total": 2,
        "cache_hits_total": 0,
        "record_texts_total": 9,
    }


@pytest.mark.parametrize("pool_size", [1, 2])
def test_the_pool_runs_at_most_its_size_at_once(pool_size: int) -> None:
    encode = FakeEncode()
    encode.gate.clear()
    pool = EncodePool(pool_size)

    async def scenario() -> None:
        calls = [
            asyncio.create_task(pool.run(n % 2, lambda n=n: encode([str(n)]))) for n in range(5)
        ]
        await until(lambda: pool.queued == 5 - pool_size and encode.running == pool_size)
        encode.gate.set()
        await asyncio.gather(*calls)

    run(scenario)
    assert encode.most_running == pool_size
    pool.close()


def test_pool_threads_run_at_their_priority_s_nice_value() -> None:
    """Query batches at `query_nice` (a search waits on them), record chunks at `nice`."""
    seen: dict[int, list[int]] = {QUERY: [], RECORD: []}

    def own_priority(priority: int) -> None:
        seen[priority].append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    async def scenario() -> None:
        pool = EncodePool(1, nice=7, query_nice=3)
        try:
            for priority in (QUERY, RECORD, QUERY, RECORD):
                await pool.run(priority, partial(own_priority, priority))
        finally:
            pool.close()

    before = os.getpriority(os.PRIO_PROCESS, 0)
    asyncio.run(scenario())
    # Lowered, never raised; each priority's thread keeps its own value across calls.
    assert seen == {QUERY: [max(before, 3)] * 2, RECORD: [max(before, 7)] * 2}
    assert os.getpriority(os.PRIO_PROCESS, 0) == before  # the process (event loop) keeps its own
