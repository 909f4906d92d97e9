"""BM25 from a client's own statistics (app/retrieval/bm25.py), its bounded cost, the query's
words and the per-client figures' cache (single flight, stale while one refresh runs)."""

from __future__ import annotations

import asyncio
import math
import re
import time
from collections import Counter
from typing import Any, cast

import pytest

from app.domain.kernel.errors import Unavailable
from app.graph.executor import GraphExecutor
from app.request_deadline import request_deadline
from app.retrieval.bm25 import (
    TF_TEXT_CHARS,
    Candidate,
    ClientStats,
    WordStats,
    fold,
    idf,
    rank,
    score,
    spotter,
    term_frequency,
    word_counts,
)
from app.retrieval.client_stats import RETRY_S, ClientStatsCache
from app.retrieval.keyword import (
    MAX_CANDIDATES,
    MIN_CANDIDATES,
    _ranked,
    candidate_depth,
    candidates_query,
)
from app.retrieval.search_queries import MAX_QUERY_WORDS, query_words, word_lucene

CLIENT = ClientStats(docs=100, mean_length=20.0)


def held(df: int, *holders: str) -> WordStats:
    return WordStats(df, frozenset(holders))


def test_idf_is_lucenes_and_never_negative_with_a_stale_count() -> None:
    assert idf(1, 100) == pytest.approx(math.log(1 + 99.5 / 1.5))
    assert idf(10, 100) < idf(1, 100)
    assert idf(50, 20) == pytest.approx(math.log(1 + 0.5 / 50.5))
    assert idf(50, 20) > 0


def test_fold_drops_one_plural_s_only() -> None:
    assert [fold(w) for w in ("Dogs", "dog", "glass", "bus", "is")] == [
        "dog",
        "dog",
        "glass",
        "bus",
        "is",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Dogs, dog_x DOG glasses glass: the dog's bowl",
        "東京 東京都 Zürich zürichs café cafés",
        "a+b dog-dog (dog) 12dogs dog12 dogss",
    ],
)
def test_spotting_counts_as_splitting_into_words_would(text: str) -> None:
    words = ["dog", "Glass", "東京", "zürich", "cafés", "a", "b"]
    folds = {fold(w) for w in words}
    split = Counter(f for t in re.findall(r"[^\W_]+", text) if (f := fold(t)) in folds)
    assert word_counts(text, spotter(words)) == split
    assert word_counts(text, spotter([])) == Counter()


def test_the_index_decides_who_holds_a_word_and_the_text_how_often() -> None:
    counts = {"dog": 3}
    assert term_frequency(counts, "a", "dogs", held(5, "a")) == 3
    # The index matched a stemmed form the count does not see ("running" for "run").
    assert term_frequency({}, "a", "run", held(5, "a")) == 1
    assert term_frequency(counts, "b", "dog", held(5, "a")) == 0
    assert term_frequency(counts, "b", "dog", WordStats(10_000, None)) == 3


def test_score_rewards_rare_words_repetition_and_short_records() -> None:
    stats = {"rare": held(2, "r", "both"), "common": held(60, "c", "both", "long")}
    rare = score(Candidate("r", "rare thing here", 15), ["rare", "common"], stats, CLIENT)
    common = score(Candidate("c", "common thing here", 17), ["rare", "common"], stats, CLIENT)
    both = score(Candidate("both", "rare common here", 16), ["rare", "common"], stats, CLIENT)
    long = score(Candidate("long", "common " + "x " * 60, 127), ["common"], stats, CLIENT)
    assert both > rare > common > long > 0
    twice = score(Candidate("c", "common common", 13), ["common"], stats, CLIENT)
    assert twice > score(Candidate("c", "common other", 12), ["common"], stats, CLIENT)


def test_keyword_query_gathers_candidates_of_the_words_weighing_enough_only() -> None:
    query = candidates_query("true")
    assert query.count("$gather_share") == 1  # the condition is stated once, as a flag
    assert "WITH word WHERE word.gathered UNWIND word.holders" in query
    assert "word {.word, .df, .gathered}" in query  # Python learns which were gathered


def test_a_word_not_gathered_is_counted_from_the_candidates_text() -> None:
    row = {"record": {"id": "a"}, "text": "common rare", "length": 11, "held": ["rare"]}
    words = ["common", "rare"]

    def scored(common_gathered: bool) -> float:
        dfs = {"common": (30, common_gathered), "rare": (2, True)}
        return asyncio.run(_ranked([row], words, dfs, ClientStats(32, 11.0)))[0][1]

    # Gathered and not among its holders: "a" does not hold it. Not gathered: its text says so.
    assert scored(common_gathered=False) > scored(common_gathered=True) > 0


def test_words_without_holders_add_nothing_and_a_repeated_word_counts_again() -> None:
    stats = {"w": held(3, "a"), "gone": held(0)}
    once = score(Candidate("a", "w", 1), ["w"], stats, CLIENT)
    assert score(Candidate("a", "w", 1), ["w", "gone", "unknown"], stats, CLIENT) == once
    assert score(Candidate("a", "w", 1), ["w", "w"], stats, CLIENT) == pytest.approx(2 * once)


def test_rank_orders_by_score_then_id_and_keeps_every_candidate() -> None:
    stats = {"w": held(2, "b", "a")}
    candidates = [
        Candidate("b", "w", 1),
        Candidate("z", "nothing", 7),
        Candidate("a", "w", 1),
    ]
    ranked = rank(candidates, ["w"], stats, CLIENT)
    assert [rid for rid, _ in ranked] == ["a", "b", "z"]
    assert ranked[0][1] == ranked[1][1] > ranked[2][1] == 0.0


def test_an_empty_client_mean_does_not_divide_by_zero() -> None:
    empty = ClientStats(docs=0, mean_length=0.0)
    assert score(Candidate("a", "w", 5), ["w"], {"w": held(1, "a")}, empty) > 0


def test_candidate_depth_and_word_query() -> None:
    assert candidate_depth(10) == MIN_CANDIDATES
    assert candidate_depth(100) == 150  # 1.5 per record kept
    assert candidate_depth(75) == 112  # k 25: pool 75
    assert candidate_depth(10**6) == MAX_CANDIDATES
    assert word_lucene("東京", client_key="k1", record_types=()) == (
        '+search_client:k1 +search_text:"東京"'
    )


def test_query_words_leave_out_what_the_index_cannot_hold_and_stop_at_the_cap() -> None:
    # "not" and "no" are content words but stop words of the index's analyser: a clause of one
    # of them alone matched every record of the client.
    assert query_words("Did she say no, or not a dog? Dogs!") == ["say", "dog", "dogs"]
    assert query_words("not no") == []
    many = " ".join(f"w{i} w{i % 3}" for i in range(100))
    kept = query_words(many)
    assert set(kept) == {f"w{i}" for i in range(MAX_QUERY_WORDS)}
    assert kept.count("w1") > 1  # a repeated word still counts again


def test_a_word_is_counted_in_the_first_characters_only() -> None:
    spotted = spotter(["dog"])
    text = "dog " * (TF_TEXT_CHARS // 4) + "dog " * 1000
    assert word_counts(text, spotted)["dog"] == TF_TEXT_CHARS // 4


def _rank_seconds(texts: list[str], words: list[str]) -> float:
    stats = {word: WordStats(len(texts), None) for word in words}
    candidates = [Candidate(str(n), text, len(text)) for n, text in enumerate(texts)]
    started = time.perf_counter()
    ranked = rank(candidates, words, stats, ClientStats(len(texts), 32_000.0))
    assert len(ranked) == len(texts) and ranked[0][1] > 0
    return time.perf_counter() - started


def test_rescoring_long_records_costs_what_their_first_characters_cost() -> None:
    """Issue 11 review S-1: a regex of 64 words over 32,000-character candidates cost 7 ms each
    (seconds per search, on the event loop). Now a candidate costs what TF_TEXT_CHARS cost."""
    words = query_words(" ".join(f"term{i}" for i in range(64)))
    body = " ".join(f"term{i % 80} filler{i}" for i in range(4_000))[:32_000]
    long_texts = [f"{n} {body}" for n in range(200)]
    short_texts = [text[:TF_TEXT_CHARS] for text in long_texts]
    short = min(_rank_seconds(short_texts, words) for _ in range(3))
    long = min(_rank_seconds(long_texts, words) for _ in range(3))
    assert long < 3 * short + 0.02, (long, short)


class FakeGraph:
    """Answers the statistics query with the next figures (after `delay_s`, or when `gate` is
    set) and counts the reads; background() is itself, as a real executor's is a copy."""

    timeout_s: float | None = None

    def __init__(self, delay_s: float = 0.0, gate: asyncio.Event | None = None) -> None:
        self.reads: list[dict[str, Any]] = []
        self.delay_s = delay_s
        self.gate = gate
        self.fail = False

    def background(self) -> FakeGraph:
        return self

    def unavailable(self, error: BaseException) -> Unavailable:
        return Unavailable(f"unavailable: {error!r}", retry_after_s=1)

    async def read(self, query: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        self.reads.append(params)
        count = len(self.reads)
        if self.gate is not None:
            await self.gate.wait()
        await asyncio.sleep(self.delay_s)
        if self.fail:
            raise ConnectionError("gone")
        return [{"docs": count, "mean_length": 10.0}]


def _executor(graph: FakeGraph) -> GraphExecutor:
    return cast(GraphExecutor, graph)


def test_client_stats_are_cached_per_client_and_types_and_refreshed_once_stale() -> None:
    now = [0.0]
    cache = ClientStatsCache(ttl_s=30, max_clients=10, clock=lambda: now[0])
    graph = FakeGraph()

    async def scenario() -> None:
        async def get(client: str, *types: str) -> int:
            return (await cache.get(_executor(graph), client, types)).docs

        assert await get("a") == 1 and await get("a") == 1
        assert await get("b") == 2
        assert await get("a", "Lesson") == 3 and await get("a", "Lesson") == 3
        now[0] = 31.0
        assert await get("a") == 1  # stale, served at once while one refresh runs
        assert await get("a") == 1
        await asyncio.sleep(0.01)
        assert await get("a") == 4
        assert [(r["client_id"], r["record_types"]) for r in graph.reads] == [
            ("a", []), ("b", []), ("a", ["Lesson"]), ("a", [])
        ]  # fmt: skip

    asyncio.run(scenario())


def test_client_stats_cache_stays_bounded() -> None:
    cache = ClientStatsCache(ttl_s=30, max_clients=2, clock=lambda: 0.0)
    graph = FakeGraph()

    async def scenario() -> None:
        for client in ("a", "b", "c", "c", "a"):  # "a" was evicted first: read again
            await cache.get(_executor(graph), client)

    asyncio.run(scenario())
    assert [read["client_id"] for read in graph.reads] == ["a", "b", "c", "a"]


def test_concurrent_searches_share_one_read_of_the_statistics() -> None:
    """Review S-3: every concurrent search of a client ran the full count when the entry
    expired (or was missing)."""
    now = [0.0]
    cache = ClientStatsCache(ttl_s=30, clock=lambda: now[0])
    graph = FakeGraph(delay_s=0.05)

    async def scenario() -> None:
        first = await asyncio.gather(*(cache.get(_executor(graph), "a") for _ in range(20)))
        assert {stats.docs for stats in first} == {1} and len(graph.reads) == 1
        now[0] = 31.0
        stale = await asyncio.gather(*(cache.get(_executor(graph), "a") for _ in range(20)))
        assert {stats.docs for stats in stale} == {1}
        await asyncio.sleep(0.1)
        assert len(graph.reads) == 2 and (await cache.get(_executor(graph), "a")).docs == 2

    asyncio.run(scenario())


def test_a_refresh_is_not_ended_by_the_request_deadline() -> None:
    """A refresh slower than a request's deadline completes in the background; the first read
    answers Unavailable at the deadline and the next search gets the figures."""
    cache = ClientStatsCache(ttl_s=30, clock=lambda: 0.0)
    gate = asyncio.Event()
    graph = FakeGraph(gate=gate)

    async def scenario() -> None:
        with request_deadline(0.05), pytest.raises(Unavailable):
            await cache.get(_executor(graph), "a")
        gate.set()
        await asyncio.sleep(0.01)
        with request_deadline(0.05):
            assert (await cache.get(_executor(graph), "a")).docs == 1
        assert len(graph.reads) == 1

    asyncio.run(scenario())


def test_a_failed_refresh_keeps_the_old_figures_and_tries_again_later() -> None:
    now = [0.0]
    cache = ClientStatsCache(ttl_s=30, clock=lambda: now[0])
    graph = FakeGraph()

    async def scenario() -> None:
        assert (await cache.get(_executor(graph), "a")).docs == 1
        now[0], graph.fail = 31.0, True
        assert (await cache.get(_executor(graph), "a")).docs == 1
        await asyncio.sleep(0.01)
        assert (await cache.get(_executor(graph), "a")).docs == 1 and len(graph.reads) == 2
        now[0], graph.fail = 31.0 + RETRY_S, False
        assert (await cache.get(_executor(graph), "a")).docs == 1
        await asyncio.sleep(0.01)
        assert (await cache.get(_executor(graph), "a")).docs == 3

    asyncio.run(scenario())
