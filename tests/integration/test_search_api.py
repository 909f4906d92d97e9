"""Search over HTTP: the worker indexes writes, modes agree with the text, clients never mix."""

from __future__ import annotations

import uuid
from typing import Any

from tests.integration.conftest import Caller
from tests.integration.search_helpers import search, wait_indexed
from tests.integration.test_conversations_api import append, create_thread

TURNS = [
    "We should repaint the kitchen cabinets in a soft sage green before the open house.",
    "My sister adopted a golden retriever puppy named Biscuit last weekend.",
    "The quarterly tax filing is due on the fifteenth, remember to send receipts.",
    "I started training for the Berlin marathon, running forty miles a week.",
    "Our bakery launch needs sourdough samples and a chalkboard menu.",
]


def seed_thread(caller: Caller) -> dict[str, str]:
    thread = create_thread(caller)["thread"]
    ids = {}
    for index, text in enumerate(TURNS):
        ids[text] = append(caller, thread["id"], f"t-{index}-{uuid.uuid4().hex[:6]}", text)[
            "event"
        ]["id"]
    wait_indexed(caller)
    return ids


def test_each_mode_finds_the_matching_turn_first(alice: Caller) -> None:
    ids = seed_thread(alice)
    dog = ids[TURNS[1]]
    for mode in ("VECTOR", "KEYWORD", "HYBRID"):
        hits = search(alice, "golden retriever puppy", mode=mode, k=3)
        assert hits[0]["recordId"] == dog, (mode, hits)
        assert hits[0]["recordType"] == "ConversationEvent"
    meaning = search(alice, "a new dog joined the family", mode="VECTOR", k=1)
    assert meaning[0]["recordId"] == dog
    hybrid = search(alice, "marathon running training", mode="HYBRID", k=2)[0]
    assert hybrid["vectorRank"] == 1 and hybrid["keywordRank"] == 1
    assert any("keyword rank" in why for why in hybrid["why"])


def test_another_clients_records_are_never_found(alice: Caller, bob: Caller) -> None:
    seed_thread(alice)
    bob_thread = create_thread(bob)["thread"]
    append(bob, bob_thread["id"], "b-1", "Bob keeps a golden retriever too, named Max.")
    wait_indexed(bob)
    for mode in ("VECTOR", "KEYWORD", "HYBRID"):
        hits = search(bob, "golden retriever puppy", mode=mode, k=10)
        assert [hit["record"]["threadId"] for hit in hits] == [bob_thread["id"]], mode


def test_filters_and_record_types(alice: Caller) -> None:
    ids = seed_thread(alice)
    other = create_thread(alice)["thread"]
    append(alice, other["id"], "o-1", "Golden retrievers shed a lot in spring.")
    wait_indexed(alice)
    only_other = search(alice, "golden retriever", k=10, filters={"threadId": other["id"]})
    assert [hit["record"]["threadId"] for hit in only_other] == [other["id"]]
    none = search(alice, "golden retriever", k=10, recordTypes=["LESSON"])
    assert none == []
    assert ids


def test_bad_input_is_a_typed_error(alice: Caller) -> None:
    body = alice.gql(
        "query($i: SearchInput!) { search(input: $i) { hits { recordId } } }",
        {"i": {"text": "x", "k": 500}},
    )
    assert body["errors"][0]["extensions"]["code"] == "VALIDATION"


def test_long_text_kept_in_object_storage_is_indexed(alice: Caller, neo4j_session: Any) -> None:
    thread = create_thread(alice)["thread"]
    text = "The committee reviewed routine paperwork for hours. " * 40
    text += "Finally they approved the zeppelin hangar renovation."
    event = append(alice, thread["id"], "long-1", text)["event"]
    assert event["text"] is None and event["textUri"]
    wait_indexed(alice)
    hits = search(alice, "zeppelin hangar", mode="KEYWORD", k=3)
    assert [hit["recordId"] for hit in hits][:1] == [event["id"]]
    stored = neo4j_session.run(
        "MATCH (e:ConversationEvent {id: $id}) RETURN e.search_truncated AS cut", id=event["id"]
    ).single()
    assert stored["cut"] is True  # longer than the model's 256 tokens, and recorded as such
