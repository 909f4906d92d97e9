"""The keyword signal of search, from the caller's own records only (issue 11, finding 10).

The full-text index answers one question per query word: which of the client's records (of the
types searched) hold it. Its own scores, whose statistics span every client, are never read.
The client's own count of holders weighs each word (BM25 idf); the records holding the heaviest
words are the candidates (ties by id), a word much lighter than the query's heaviest bringing
none of its own (GATHER_SHARE); BM25 from the client's own figures ranks them
(app/retrieval/bm25.py). So which records are candidates, their order and their scores depend
on the client's records alone, with one exception: a word held by DF_LIMIT or more of them
counts as held by DF_LIMIT, and which DF_LIMIT of its holders are read follows the index's
ranking for that word alone (its length norm uses every client's mean length).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from app.graph.executor import GraphExecutor
from app.request_deadline import deadline_paused
from app.retrieval import search_queries as q
from app.retrieval.bm25 import TF_TEXT_CHARS, Candidate, ClientStats, WordStats, rank
from app.retrieval.client_stats import CLIENT_STATS
from app.retrieval.index_rows import client_key

# Candidates rescored per record kept, at least MIN and at most MAX of them. Fewer than the
# 4 per kept (at least 200) before issue 19: LoCoMo's keyword and hybrid recall@5/10/25 were the
# same within a question, and the keyword signal's server time fell from 28.9 to 22.6 ms p50
# (the candidates' transfer and their BM25 in Python shrink with their number).
CANDIDATES_PER_KEPT = 1.5
MIN_CANDIDATES = 100
MAX_CANDIDATES = 1_000
# A word's holders are read up to this many records of the client (each costs about 2 us in
# the database, counted and again gathered); past it, its df is this limit, and the candidates'
# own text says whether they hold it.
DF_LIMIT = 2_000
# A query word weighing less than this share of the query's heaviest word brings no candidates
# of its own: its holders are counted (its df) and the candidates' text says whether they hold
# it, as past DF_LIMIT. Such a word is held by most of the client's records (a speaker's name in
# every turn of a conversation: LoCoMo's keyword query 5.9 -> 3.3 ms p50); a record holding it
# alone scores next to nothing, and a query of such words only gathers them all.
GATHER_SHARE = 0.05
# Candidate text (characters) rescored on the event loop; more goes to a worker thread.
INLINE_CHARS = 100_000

# bm25.idf in Cypher, of `df` and `$docs` (the client's count, never below df): the query
# weighs the words in the database (tests/integration/test_search_common_words.py holds the two
# to the same figures).
IDF = "log(1 + ((CASE WHEN $docs > df THEN $docs ELSE df END) - df + 0.5) / (df + 0.5))"
# Per query word: its holders among the client's records (up to DF_LIMIT), their count (df)
# and its BM25 weight (IDF times its repeats); then the candidates, the most weight first. One
# query: the index answers each word once, for the counts and the candidates alike.
_WORDS = (
    "CYPHER 25 UNWIND $words AS word CALL (word) { "
    f"CALL db.index.fulltext.queryNodes('{q.TEXT_INDEX}', word.lucene, {{limit: $df_limit}}) "
    "YIELD node RETURN collect(node) AS holders } "
    "WITH word, holders, size(holders) AS df "
    "WITH collect({word: word.word, df: df, holders: holders, "
    f"weight: word.times * {IDF}}}) AS words "
    "WITH words, reduce(most = 0.0, word IN words | "
    "CASE WHEN word.df > 0 AND word.weight > most THEN word.weight ELSE most END) AS heaviest "
    "WITH [word IN words | word {.*, gathered: word.weight >= $gather_share * heaviest}] AS words "
)


def candidates_query(where: str, ranked: str = q.RANKED) -> str:
    """Each word's df, and the client's records holding the words, the most weight (sum of the
    held words' weights) first, ties by id, each as `ranked` (search_queries.ranked). One row:
    as many rows cost twice the time on the driver."""
    return (
        _WORDS + "CALL (words) { UNWIND words AS word WITH word WHERE word.gathered "
        "UNWIND word.holders AS n "
        "WITH n, sum(word.weight) AS weight, collect(word.word) AS held "
        f"WHERE n.client_id = $client_id AND {where} "
        "WITH n, weight, held ORDER BY weight DESC, n.id LIMIT $depth "
        f"RETURN collect({{record: {ranked}, held: held, "
        "text: left(n.search_text, $tf_chars), length: size(n.search_text)}) AS candidates } "
        "RETURN [word IN words | word {.word, .df, .gathered}] AS dfs, candidates"
    )


def candidate_depth(pool: int) -> int:
    return int(min(max(pool * CANDIDATES_PER_KEPT, MIN_CANDIDATES), MAX_CANDIDATES))


async def keyword_rows(
    graph: GraphExecutor,
    *,
    text: str,
    record_types: tuple[str, ...],
    pool: int,
    where: str,
    params: dict[str, Any],
    ranked: str = q.RANKED,
) -> list[dict[str, Any]]:
    """Up to `pool` rows {record (as `ranked`, search_queries.ranked), score}, best first, of the
    client params["client_id"]."""
    words = q.query_words(text)
    key = client_key(params["client_id"])
    lucene = {w: q.word_lucene(w, client_key=key, record_types=record_types) for w in words}
    if not lucene:
        return []
    client = await CLIENT_STATS.get(graph, params["client_id"], record_types)
    times = Counter(words)
    asked = [{"word": w, "lucene": query, "times": times[w]} for w, query in lucene.items()]
    found = await graph.read_plain(
        candidates_query(where, ranked),
        params
        | {"words": asked, "df_limit": DF_LIMIT, "depth": candidate_depth(pool)}
        | {"tf_chars": TF_TEXT_CHARS, "docs": client.docs, "gather_share": GATHER_SHARE},
    )
    if not found:
        return []
    # Each word's df, and whether every holder of it was gathered (the candidates holding it
    # are then known; else their text says).
    dfs = {
        str(row["word"]): (int(row["df"]), bool(row["gathered"]) and row["df"] < DF_LIMIT)
        for row in found[0]["dfs"]
    }
    rows = list(found[0]["candidates"])
    scored = await _ranked(rows, words, dfs, client)
    records = {str(row["record"]["id"]): row["record"] for row in rows}
    return [{"record": records[rid], "score": score} for rid, score in scored[:pool]]


async def _ranked(
    rows: list[dict[str, Any]],
    words: list[str],
    dfs: dict[str, tuple[int, bool]],
    client: ClientStats,
) -> list[tuple[str, float]]:
    """dfs: per word, its df and whether every holder of it was gathered."""
    candidates = [
        Candidate(str(row["record"]["id"]), str(row["text"] or ""), int(row["length"] or 0))
        for row in rows
    ]
    holders: dict[str, set[str]] = {word: set() for word in dfs}
    for candidate, row in zip(candidates, rows, strict=True):
        for word in row["held"]:
            holders[word].add(candidate.record_id)
    # Every holder gathered: the candidates holding the word are known.
    stats = {
        word: WordStats(df, frozenset(holders[word]) if complete else None)
        for word, (df, complete) in dfs.items()
    }
    if sum(len(c.text) for c in candidates) <= INLINE_CHARS:
        return rank(candidates, words, stats, client)
    # Our own CPU time, not a wait on Neo4j: off the loop, and not counted against the deadline.
    with deadline_paused():
        return await asyncio.to_thread(rank, candidates, words, stats, client)
