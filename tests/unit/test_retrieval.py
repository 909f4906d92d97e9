"""The pure parts of retrieval: rank fusion, MMR, the search filter clause, the Lucene queries."""

from __future__ import annotations

import re
from dataclasses import fields
from datetime import UTC, datetime

import pytest

from app.retrieval.fusion import cosine, maximal_marginal_relevance, reciprocal_rank_fusion
from app.retrieval.search_queries import (
    LIVE,
    MAX_QUERY_WORDS,
    SearchFilters,
    filter_clause,
    has_filters,
    query_words,
    word_lucene,
)

HOSTILE = "x' OR 1=1 }) DETACH DELETE n //"


def test_rrf_sums_one_over_k_plus_rank() -> None:
    fused = reciprocal_rank_fusion({"vector": ["a", "b"], "keyword": ["b", "c"]})
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["c"] == pytest.approx(1 / 62)
    assert sorted(fused, key=lambda rid: -fused[rid]) == ["b", "a", "c"]


def test_rrf_k_and_weights() -> None:
    fused = reciprocal_rank_fusion({"s": ["a"], "t": ["b"]}, k=0, weights={"t": 3.0})
    assert fused == {"a": pytest.approx(1.0), "b": pytest.approx(3.0)}
    assert reciprocal_rank_fusion({}) == {}
    assert reciprocal_rank_fusion({"vector": []}) == {}


def test_rrf_rewards_agreement_over_one_top_rank() -> None:
    """Second in both lists beats first in one list only (the point of fusing)."""
    fused = reciprocal_rank_fusion({"v": ["solo", "both"], "k": ["other", "both"]})
    assert fused["both"] > fused["solo"] == fused["other"]


def test_cosine() -> None:
    assert cosine([1.0, 0.0], [2.0, 0.0]) == pytest.approx(1.0)
    assert cosine([1.0, 0.0], [0.0, 3.0]) == pytest.approx(0.0)
    assert cosine([1.0, 1.0], [-1.0, -1.0]) == pytest.approx(-1.0)
    assert cosine([0.0, 0.0], [1.0, 0.0]) == 0.0


RELEVANCE = {"a": 1.0, "a_twin": 0.9, "c": 0.5}
VECTORS = {"a": [1.0, 0.0], "a_twin": [1.0, 0.0], "c": [0.0, 1.0]}


def test_mmr_skips_a_near_duplicate_for_diversity() -> None:
    ranked = ["a", "a_twin", "c"]
    diverse = maximal_marginal_relevance(ranked, RELEVANCE, VECTORS, k=2, trade_off=0.5)
    assert diverse == ["a", "c"]
    relevant_only = maximal_marginal_relevance(ranked, RELEVANCE, VECTORS, k=2, trade_off=1.0)
    assert relevant_only == ["a", "a_twin"]


def test_mmr_edges() -> None:
    ranked = ["a", "a_twin", "c"]
    assert maximal_marginal_relevance([], {}, {}, k=3, trade_off=0.5) == []
    everything = maximal_marginal_relevance(ranked, RELEVANCE, VECTORS, k=10, trade_off=0.5)
    assert sorted(everything) == sorted(ranked)
    # Without vectors nothing overlaps: the order is relevance alone.
    blind = maximal_marginal_relevance(ranked, RELEVANCE, {}, k=3, trade_off=0.3)
    assert blind == ranked
    equal = maximal_marginal_relevance(["x", "y"], {"x": 0.2, "y": 0.2}, {}, k=1, trade_off=0.5)
    assert equal == ["x"]


def _all_set(value: str) -> SearchFilters:
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    return SearchFilters(
        created_after=moment,
        created_before=moment,
        statuses=(value,),
        platform=value,
        thread_id=value,
        plan_id=value,
        agent=value,
        scope=value,
        kinds=(value,),
        tags=(value, "b"),
        namespace_prefix=value,
        session_id=value,
        min_priority=3,
        kb_version_id=value,
        exclude_id=value,
    )


def test_no_filter_is_only_the_liveness_condition() -> None:
    where, params = filter_clause(SearchFilters())
    assert (where, params) == (LIVE, {})
    assert not has_filters(SearchFilters())


def test_filter_values_travel_only_as_parameters() -> None:
    filters = _all_set(HOSTILE)
    where, params = filter_clause(filters)
    assert HOSTILE not in where and "'" not in where and "1=1" not in where
    assert set(params) == {item.name for item in fields(SearchFilters)}
    for name in params:
        assert f"${name}" in where
    assert params["statuses"] == [HOSTILE] and params["tags"] == [HOSTILE, "b"]
    assert isinstance(params["kinds"], list) and params["min_priority"] == 3
    assert has_filters(filters)


@pytest.mark.parametrize("name", [item.name for item in fields(SearchFilters)])
def test_each_filter_adds_its_own_condition(name: str) -> None:
    value = getattr(_all_set("v"), name)
    where, params = filter_clause(SearchFilters(**{name: value}))
    assert list(params) == [name]
    condition = where.removeprefix(LIVE + " AND ")
    assert condition != where and f"${name}" in condition and LIVE not in condition
    assert has_filters(SearchFilters(**{name: value})) == (name != "exclude_id")


LUCENE_SYNTAX = re.compile(r'[+\-!(){}\[\]^"~*?:\\/&|]')


def _word_part(query: str, client_key: str) -> str:
    """The quoted word of a per-word query (search_queries.word_lucene)."""
    prefix = f'+search_client:{client_key} +search_text:"'
    assert query.startswith(prefix) and query.endswith('"')
    return query[len(prefix) : -1]


def _words_in_queries(text: str, client_key: str) -> list[str]:
    return [
        _word_part(word_lucene(word, client_key=client_key, record_types=()), client_key)
        for word in query_words(text)
    ]


def test_word_queries_keep_only_words_inside_the_client() -> None:
    text = 'title:"water heater" OR price* -cheap +fast ~2 ^9 (a) AND NOT b\\c/d && e || f?'
    words = _words_in_queries(text, "abc123")
    assert not any(LUCENE_SYNTAX.search(word) for word in words)
    assert words == [
        "title", "water", "heater", "price", "cheap", "fast", "2", "9", "b", "c", "d", "e", "f",
    ]  # fmt: skip
    # Lower case: Lucene's operators are AND, OR and NOT in capitals only.
    assert not any(re.search(r"\b(AND|OR|NOT)\b", word) for word in words)


def test_word_query_adds_types_and_words_are_capped() -> None:
    query = word_lucene("one", client_key="k", record_types=("Lesson", "PlanNode"))
    assert query == '+search_client:k +search_text:"one" +record_type:(Lesson PlanNode)'
    many = query_words(" ".join(f"w{i}" for i in range(100)))
    assert many == [f"w{i}" for i in range(MAX_QUERY_WORDS)]


@pytest.mark.parametrize("text", ["", "   ", "+-:*?()", '"" ~ ^'])
def test_text_without_words_asks_nothing(text: str) -> None:
    assert query_words(text) == []


def test_client_clause_cannot_be_widened_by_the_text() -> None:
    for word in query_words("x) OR search_client:*"):
        query = word_lucene(word, client_key="mine", record_types=())
        assert query.count("search_client") == 1 and query.startswith("+search_client:mine ")
    assert _words_in_queries("x) OR search_client:*", "mine") == ["x", "search", "client"]


def test_word_queries_keep_words_of_any_script() -> None:
    words = _words_in_queries("Café in Zürich: москва 東京 a_b", "k")
    assert words == ["café", "zürich", "москва", "東京", "b"]
