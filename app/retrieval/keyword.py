"""The keyword signal of search: the full-text index finds a client's candidates, and BM25 from
that client's own statistics ranks them (app/retrieval/bm25.py).

Which candidates the index hands over still follows its ranking over every client's records:
the candidate pool is several times deeper than what is kept, so that a record the client's own
statistics would keep is rarely left outside it.
"""

from __future__ import annotations

from typing import Any

from app.graph.executor import GraphExecutor
from app.retrieval import search_queries as q
from app.retrieval.bm25 import Candidate, WordStats, rank
from app.retrieval.client_stats import CLIENT_STATS
from app.retrieval.indexing import client_key

# Candidates asked of the index per record kept, and at least this many.
CANDIDATES_PER_KEPT = 4
MIN_CANDIDATES = 200
# The deepest candidate pool, asked for when the conditions after the index left fewer than k.
KEYWORD_POOL_MAX = 5_000
# A word's holders are counted up to this many records of the client (cost: ~0.5 us each);
# past it, its df is this limit and the candidates' own text says whether they hold it.
DF_LIMIT = 10_000


def candidates_query(where: str) -> str:
    """One row holding every candidate: as many rows cost twice the time on the driver."""
    return (
        f"CALL db.index.fulltext.queryNodes('{q.TEXT_INDEX}', $lucene, {{limit: $depth}}) "
        f"YIELD node AS n WHERE n.client_id = $client_id AND {where} "
        f"RETURN collect({{record: {q.RANKED}, element: elementId(n), text: n.search_text, "
        "length: size(n.search_text)}) AS candidates"
    )


# Per query word, inside the client: how many records hold it and which of the candidates.
WORDS_QUERY = (
    "CYPHER 25 UNWIND $words AS word CALL (word) { "
    f"CALL db.index.fulltext.queryNodes('{q.TEXT_INDEX}', word.lucene, {{limit: $df_limit}}) "
    "YIELD node RETURN count(node) AS df, "
    "collect(CASE WHEN elementId(node) IN $elements THEN node.id END) AS holders } "
    "RETURN word.word AS word, df, holders"
)


def candidate_depth(pool: int) -> int:
    return min(max(pool * CANDIDATES_PER_KEPT, MIN_CANDIDATES), KEYWORD_POOL_MAX)


def word_lucene(key: str, word: str) -> str:
    """One query word inside the client. Quoted: a word the analyser splits (CJK) stays one."""
    return f'+search_client:{key} +search_text:"{word}"'


async def keyword_rows(
    graph: GraphExecutor,
    *,
    text: str,
    record_types: tuple[str, ...],
    k: int,
    pool: int,
    where: str,
    params: dict[str, Any],
) -> list[dict[str, Any]]:
    """Up to `pool` rows {record (as search_queries.RANKED), score}, best first, of the client
    params["client_id"]."""
    words = q.query_words(text)
    key = client_key(params["client_id"])
    lucene = q.lucene_query(" ".join(words), client_key=key, record_types=record_types)
    if not lucene:
        return []
    rows = await _candidate_rows(graph, where, params | {"lucene": lucene}, k=k, pool=pool)
    if not rows:
        return []
    candidates = [
        Candidate(str(row["record"]["id"]), str(row["text"] or ""), int(row["length"] or 0))
        for row in rows
    ]
    stats = await _word_stats(graph, key, words, [row["element"] for row in rows])
    client = await CLIENT_STATS.get(graph, params["client_id"])
    records = {c.record_id: row["record"] for c, row in zip(candidates, rows, strict=True)}
    return [
        {"record": records[rid], "score": s}
        for rid, s in rank(candidates, words, stats, client)[:pool]
    ]


async def _candidate_rows(
    graph: GraphExecutor, where: str, params: dict[str, Any], *, k: int, pool: int
) -> list[dict[str, Any]]:
    """The client's records matching the query and the conditions, as candidates_query."""
    depth = candidate_depth(pool)
    rows = await _read_candidates(graph, where, params | {"depth": depth})
    # The conditions after the index (liveness, filters) can thin the candidates; Lucene has
    # no exact mode, so it is asked once more for a much deeper pool.
    deeper = min(pool * 20, KEYWORD_POOL_MAX)
    if len(rows) < k and deeper > depth:
        rows = await _read_candidates(graph, where, params | {"depth": deeper})
    return rows


async def _read_candidates(
    graph: GraphExecutor, where: str, params: dict[str, Any]
) -> list[dict[str, Any]]:
    found = await graph.read_plain(candidates_query(where), params)
    return list(found[0]["candidates"]) if found else []


async def _word_stats(
    graph: GraphExecutor, key: str, words: list[str], elements: list[str]
) -> dict[str, WordStats]:
    asked = [{"word": word, "lucene": word_lucene(key, word)} for word in dict.fromkeys(words)]
    params = {"words": asked, "elements": elements, "df_limit": DF_LIMIT}
    rows = await graph.read(WORDS_QUERY, params)
    return {
        row["word"]: WordStats(
            int(row["df"]), None if row["df"] >= DF_LIMIT else frozenset(row["holders"])
        )
        for row in rows
    }
