"""A search hit's record is read as the caller selected it (app/api/search/shown.py): the
selected fields of each record type, relationship fields included, the same values as a read
of the record by id, in every mode."""

from __future__ import annotations

from typing import Any

import pytest

from app.api.read.fast_path import STATS
from app.retrieval import search
from tests.integration.conftest import Caller
from tests.integration.memory_helpers import remember
from tests.integration.search_helpers import wait_indexed
from tests.integration.test_conversations_api import EVENT, append, create_thread

SEARCH = """query($input: SearchInput!) { search(input: $input) { hits { recordId record {
  __typename ...Turn ... on MemoryRecord { key createdAt }
  ... on Node { id } } } } }
fragment Turn on ConversationEvent { externalRef createdAt updatedAt metadata
  thread { id eventCount } }"""
GET_EVENT = f"query($id: ID!) {{ conversationEvent(id: $id) {{ {EVENT} updatedAt }} }}"
ONLY_TYPES = """query($input: SearchInput!) { search(input: $input) {
  hits { recordId record { __typename } } } }"""


def hits(caller: Caller, query: str, **options: Any) -> dict[str, Any]:
    found = caller.data(query, {"input": {"text": "a whippet puppy named Dash", **options}})
    return {hit["recordId"]: hit["record"] for hit in found["search"]["hits"]}


@pytest.mark.parametrize("mode", ["HYBRID", "KEYWORD", "VECTOR"])
def test_hits_show_what_was_selected_relationships_included(alice: Caller, mode: str) -> None:
    thread = create_thread(alice)["thread"]
    puppy = append(
        alice,
        thread["id"],
        "t-1",
        "I adopted a whippet puppy named Dash",
        metadata={"speaker": "Ramona"},
    )["event"]
    append(alice, thread["id"], "t-2", "How is the training going?")
    note = remember(alice, key="dash", text="Ramona's whippet puppy is called Dash")
    wait_indexed(alice)

    completed, fallbacks = STATS.completed, STATS.fallbacks
    found = hits(alice, SEARCH, mode=mode, k=5)
    # The whole result, the hits' union-typed records with it, completed by the fast path in
    # one pass (graphql-core would complete each hit's record and call it again for each thread).
    assert (STATS.completed, STATS.fallbacks) == (completed + 1, fallbacks)
    read = alice.data(GET_EVENT, {"id": puppy["id"]})["conversationEvent"]
    assert found[puppy["id"]] == {
        "__typename": "ConversationEvent",
        "id": puppy["id"],
        "externalRef": "t-1",
        "createdAt": read["createdAt"],
        "updatedAt": read["updatedAt"],
        "metadata": read["metadata"],
        "thread": {"id": thread["id"], "eventCount": 2},
    }
    assert found[note["id"]] == {
        "__typename": "MemoryRecord",
        "id": note["id"],
        "key": "dash",
        "createdAt": note["createdAt"],
    }
    # Nothing selected of the records but their type.
    typed = hits(alice, ONLY_TYPES, mode=mode, k=5)
    assert typed[puppy["id"]] == {"__typename": "ConversationEvent"}
    assert typed[note["id"]] == {"__typename": "MemoryRecord"}


def test_similar_hits_show_what_was_selected(alice: Caller) -> None:
    thread = create_thread(alice)["thread"]
    first = append(alice, thread["id"], "t-1", "I adopted a whippet puppy named Dash")["event"]
    second = append(alice, thread["id"], "t-2", "My whippet puppy Dash chews shoes")["event"]
    wait_indexed(alice)
    query = """query($id: ID!) { similar(recordId: $id, k: 3) { hits { recordId record {
      ... on ConversationEvent { externalRef thread { id } } } } } }"""
    found = alice.data(query, {"id": first["id"]})["similar"]["hits"]
    assert found[0] == {
        "recordId": second["id"],
        "record": {"externalRef": "t-2", "thread": {"id": thread["id"]}},
    }


OWN_FIELDS = """query($input: SearchInput!) { search(input: $input) { hits { recordId record {
  ... on ConversationEvent { externalRef createdAt metadata } ... on MemoryRecord { key } } } } }"""
WITH_THREAD = """query($input: SearchInput!) { search(input: $input) { hits { recordId record {
  ... on ConversationEvent { externalRef thread { id } } } } } }"""


@pytest.mark.parametrize("mode", ["HYBRID", "KEYWORD", "VECTOR"])
def test_own_fields_come_with_the_candidates_and_nothing_is_read_after_ranking(
    alice: Caller, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A selection without relationship fields is projected by the signal queries for every
    candidate (search_queries.Shown.per_candidate): the same values as a read by id, and no
    read of the records kept, which a selection of the thread still needs (a plain vector
    search reads its records in its one query either way). The API serves in this process."""
    thread = create_thread(alice)["thread"]
    puppy = append(
        alice, thread["id"], "t-1", "I adopted a whippet puppy named Dash", metadata={"n": 1}
    )["event"]
    note = remember(alice, key="dash", text="Ramona's whippet puppy is called Dash")
    wait_indexed(alice)
    reads: list[list[str]] = []
    read_kept = search._records

    async def counted_read(*args: Any) -> dict[str, dict[str, Any]]:
        reads.append(args[3])  # the ids kept
        return await read_kept(*args)

    monkeypatch.setattr(search, "_records", counted_read)
    variables = {"input": {"text": "a whippet puppy named Dash", "mode": mode, "k": 5}}
    related = alice.data(WITH_THREAD, variables)
    assert len(reads) == (0 if mode == "VECTOR" else 1)
    own = alice.data(OWN_FIELDS, variables)
    assert len(reads) == (0 if mode == "VECTOR" else 1)  # none more
    found = {hit["recordId"]: hit["record"] for hit in own["search"]["hits"]}
    read = alice.data(GET_EVENT, {"id": puppy["id"]})["conversationEvent"]
    assert found[puppy["id"]] == {
        "externalRef": "t-1",
        "createdAt": read["createdAt"],
        "metadata": read["metadata"],
    }
    assert found[note["id"]] == {"key": "dash"}
    # The same hits, in the same order, as the search that read its records after ranking.
    assert [hit["recordId"] for hit in own["search"]["hits"]] == [
        hit["recordId"] for hit in related["search"]["hits"]
    ]
