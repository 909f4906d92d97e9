"""A query word held by most of the client's records (weighing under GATHER_SHARE of the query's
heaviest word) brings no keyword candidates of its own, as Elasticsearch's common terms query
treats such words: the records holding it alone are left out, while it still counts in the BM25
of the records that the rarer words bring. A query of such words alone finds their holders."""

from __future__ import annotations

from typing import Any

import pytest

from app.retrieval.bm25 import idf
from app.retrieval.keyword import IDF
from tests.integration.conftest import Caller
from tests.integration.memory_helpers import remember
from tests.integration.search_helpers import search, wait_indexed
from tests.integration.test_search_score_isolation import fresh_word

MEMORY = ["MEMORY_RECORD"]


def test_a_word_most_records_hold_scores_but_brings_no_candidates(alice: Caller) -> None:
    common, rare, filler = fresh_word(), fresh_word(), fresh_word()
    many = [remember(alice, key=f"c{n:02}", text=f"{common} note {n:02}") for n in range(30)]
    # The same length, so that only the common word sets their scores apart.
    both = remember(alice, key="kb", text=f"{common} {rare} note")
    rare_only = remember(alice, key="kr", text=f"{filler} {rare} note")
    wait_indexed(alice)

    hits = search(alice, f"{common} {rare}", mode="KEYWORD", k=10, recordTypes=MEMORY)
    assert [hit["recordId"] for hit in hits] == [both["id"], rare_only["id"]]
    assert hits[0]["keywordScore"] > hits[1]["keywordScore"] > 0

    alone = search(alice, common, mode="KEYWORD", k=50, recordTypes=MEMORY)
    assert {hit["recordId"] for hit in alone} == {r["id"] for r in many} | {both["id"]}
    # Hybrid still lists the common word's holders: the vector signal finds them.
    mixed = search(alice, f"{common} {rare}", mode="HYBRID", k=10, recordTypes=MEMORY)
    assert [hit["recordId"] for hit in mixed][:2] == [both["id"], rare_only["id"]]


@pytest.mark.parametrize(("df", "docs"), [(1, 1), (3, 1_000), (419, 419), (500, 20), (0, 7)])
def test_the_keyword_query_weighs_a_word_as_bm25_does(
    neo4j_session: Any, df: int, docs: int
) -> None:
    """The query's weights (Cypher) and the rescoring (Python) state one formula twice."""
    row = neo4j_session.run(f"WITH $df AS df RETURN {IDF} AS idf", df=df, docs=docs).single()
    assert row["idf"] == pytest.approx(idf(df, docs), rel=1e-12)
