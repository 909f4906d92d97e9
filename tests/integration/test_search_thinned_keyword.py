"""Keyword search still finds k live records when forgotten ones crowd the top of the BM25
ranking (they stay in the full-text index; the conditions after the index drop them)."""

from __future__ import annotations

from app.retrieval.keyword import candidate_depth
from tests.integration.conftest import Caller
from tests.integration.memory_helpers import FORGET, remember
from tests.integration.search_helpers import search, wait_indexed

# More than the keyword candidates asked of the index for a k=5 search (its pool is 50).
CROWD = candidate_depth(50) + 10


def test_keyword_search_reaches_live_records_behind_forgotten_ones(alice: Caller) -> None:
    crowd = [remember(alice, key=f"z{n}", text="zebra zebra zebra") for n in range(CROWD)]
    live = [
        remember(alice, key=f"live{n}", text=f"a zebra seen at the far waterhole, note {n}")
        for n in range(2)
    ]
    wait_indexed(alice)
    before = search(alice, "zebra", mode="KEYWORD", k=5, recordTypes=["MEMORY_RECORD"])
    assert len(before) == 5 and not {h["recordId"] for h in before} & {r["id"] for r in live}
    for record in crowd:
        alice.data(FORGET, {"id": record["id"]})
    for mode in ("KEYWORD", "HYBRID"):
        hits = search(alice, "zebra", mode=mode, k=5, recordTypes=["MEMORY_RECORD"])
        assert {h["recordId"] for h in hits} == {r["id"] for r in live}, mode
