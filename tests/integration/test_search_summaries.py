"""Hybrid search: a record derived from several records (a summary of them) gains half the best
fused score among those of its sources that the search found too (fusion.lift_summaries)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.conftest import Caller
from tests.integration.memory_helpers import derive, remember
from tests.integration.search_helpers import search, wait_indexed

MEMORY = ["MEMORY_RECORD"]
QUERY = "quarterly budget review meeting"


def ranked(caller: Caller, mode: str = "HYBRID") -> dict[str, float]:
    """The hits' scores by record id, best first."""
    hits: list[dict[str, Any]] = search(caller, QUERY, mode=mode, k=10, recordTypes=MEMORY)
    return {hit["recordId"]: float(hit["score"]) for hit in hits}


def test_a_summary_of_found_records_is_lifted_by_the_best_of_them(alice: Caller) -> None:
    best = remember(alice, key="best", text="the quarterly budget review meeting")
    second = remember(alice, key="second", text="notes of the quarterly budget review")
    summary = remember(alice, key="summary", text="a recipe for lemon cake")
    # Closer to the question than the summary is (by meaning, none of its words).
    for n in range(6):
        remember(alice, key=f"filler{n}", text=f"the finance department's planning session {n}")
    wait_indexed(alice)
    before = ranked(alice)
    assert list(before)[:2] == [best["id"], second["id"]]
    assert list(before).index(summary["id"]) > 2
    fillers = max(score for rid, score in before.items() if rid not in (best["id"], second["id"]))
    signals = {mode: ranked(alice, mode) for mode in ("KEYWORD", "VECTOR")}

    derive(alice, summary, best, second)
    after = ranked(alice)
    gained = after[summary["id"]] - before[summary["id"]]
    assert gained == pytest.approx(0.5 * after[best["id"]])
    assert list(after).index(summary["id"]) == 2 and after[summary["id"]] > fillers
    # The sources keep their scores, and each signal's own ranking is unchanged.
    assert (after[best["id"]], after[second["id"]]) == (before[best["id"]], before[second["id"]])
    assert {mode: ranked(alice, mode) for mode in signals} == signals

    # Derived from one found record only, a record repeats it: demoted, not lifted.
    lone = remember(alice, key="lone", text="a recipe for apple pie")
    wait_indexed(alice)
    unlinked = ranked(alice)[lone["id"]]
    derive(alice, lone, best)
    assert ranked(alice)[lone["id"]] == pytest.approx(0.5 * unlinked)
