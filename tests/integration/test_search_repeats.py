"""Hybrid search: of a record and the one record it was derived from (DERIVED_FROM), the lower
scored is demoted, so that the top k holds more than one account of the same thing."""

from __future__ import annotations

from tests.integration.conftest import Caller
from tests.integration.memory_helpers import derive, remember
from tests.integration.search_helpers import search, wait_indexed

MEMORY = ["MEMORY_RECORD"]
QUERY = "quarterly budget review meeting"


def test_a_record_derived_from_one_other_is_not_listed_as_a_second_account(
    alice: Caller,
) -> None:
    note = remember(alice, key="note", text="the quarterly budget review meeting")
    source = remember(alice, key="source", text="the quarterly budget review meeting minutes")
    other = remember(alice, key="other", text="the quarterly budget")
    for n in range(6):
        remember(alice, key=f"filler{n}", text=f"an unrelated note about gardening, number {n}")
    wait_indexed(alice)
    before = [h["recordId"] for h in search(alice, QUERY, mode="HYBRID", k=3, recordTypes=MEMORY)]
    assert before == [note["id"], source["id"], other["id"]]

    derive(alice, note, source)
    after = [h["recordId"] for h in search(alice, QUERY, mode="HYBRID", k=3, recordTypes=MEMORY)]
    assert after == [note["id"], other["id"], source["id"]]
    # Keyword and vector rankings are their signal's own: the link changes neither.
    for mode in ("KEYWORD", "VECTOR"):
        hits = search(alice, QUERY, mode=mode, k=2, recordTypes=MEMORY)
        assert {h["recordId"] for h in hits} == {note["id"], source["id"]}, mode

    # A record derived from two is no repeat of either.
    derive(alice, note, other)
    again = [h["recordId"] for h in search(alice, QUERY, mode="HYBRID", k=3, recordTypes=MEMORY)]
    assert again == before
