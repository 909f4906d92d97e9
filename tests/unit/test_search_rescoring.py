"""BM25 from a client's own statistics (app/retrieval/bm25.py) and the per-client figures' cache."""

from __future__ import annotations

import asyncio
import math
import re
from collections import Counter
from typing import Any, cast

import pytest

from app.graph.executor import GraphExecutor
from app.retrieval.bm25 import (
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
from app.retrieval.client_stats import ClientStatsCache
from app.retrieval.keyword import (
    KEYWORD_POOL_MAX,
    MIN_CANDIDATES,
    candidate_depth,
    word_lucene,
)

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
    assert candidate_depth(100) == 400
    assert candidate_depth(10**6) == KEYWORD_POOL_MAX
    assert word_lucene("k1", "東京") == '+search_client:k1 +search_text:"東京"'


class FakeGraph:
    """Answers the statistics query with the next figures and counts the reads."""

    def __init__(self) -> None:
        self.reads: list[dict[str, Any]] = []

    async def read(self, query: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        self.reads.append(params)
        return [{"docs": len(self.reads), "mean_length": 10.0}]


def test_client_stats_are_cached_per_client_until_they_expire() -> None:
    now = [0.0]
    cache = ClientStatsCache(ttl_s=30, max_clients=2, clock=lambda: now[0])
    graph = FakeGraph()

    def get(client: str) -> int:
        return asyncio.run(cache.get(cast(GraphExecutor, graph), client)).docs

    assert get("a") == 1 and get("a") == 1
    assert get("b") == 2
    now[0] = 31.0
    assert get("a") == 3
    assert [read["client_id"] for read in graph.reads] == ["a", "b", "a"]


def test_client_stats_cache_stays_bounded() -> None:
    cache = ClientStatsCache(ttl_s=30, max_clients=2, clock=lambda: 0.0)
    graph = FakeGraph()
    for client in ("a", "b", "c"):
        asyncio.run(cache.get(cast(GraphExecutor, graph), client))
    asyncio.run(cache.get(cast(GraphExecutor, graph), "c"))
    asyncio.run(cache.get(cast(GraphExecutor, graph), "a"))  # evicted first: read again
    assert [read["client_id"] for read in graph.reads] == ["a", "b", "c", "a"]
