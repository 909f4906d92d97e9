"""Conversation turns are indexed as read in their conversation: with the speaker's name
(metadata.speaker) and, for keywords, the turn they follow."""

from __future__ import annotations

from tests.integration.conftest import Caller
from tests.integration.search_helpers import search, wait_indexed
from tests.integration.test_conversations_api import append, create_thread

TALK = [
    ("Ramona", "I adopted a whippet puppy named Dash last weekend."),
    ("Theo", "That's lovely! How is the training going?"),
    ("Ramona", "Slowly, he chews everything."),
    ("Theo", "Did you ever finish the quilt for your niece?"),
    ("Ramona", "Yes, just in time for her birthday!"),
]


def seed_talk(caller: Caller) -> list[str]:
    thread = create_thread(caller)["thread"]["id"]
    ids = [
        append(caller, thread, f"talk-{n}", text, metadata={"speaker": who})["event"]["id"]
        for n, (who, text) in enumerate(TALK)
    ]
    wait_indexed(caller)
    return ids


def test_a_reply_is_found_by_the_words_of_the_turn_it_answers(alice: Caller) -> None:
    ids = seed_talk(alice)
    hits = [hit["recordId"] for hit in search(alice, "quilt niece", mode="KEYWORD", k=5)]
    # The question says it itself; the reply ("Yes, just in time ...") only through its context.
    assert hits[:2] == [ids[3], ids[4]]
    hybrid = [hit["recordId"] for hit in search(alice, "the quilt for her niece", k=2)]
    assert set(hybrid) == {ids[3], ids[4]}


def test_the_speakers_name_finds_their_turns(alice: Caller) -> None:
    ids = seed_talk(alice)
    for mode in ("VECTOR", "KEYWORD", "HYBRID"):
        first = search(alice, "What kind of dog did Ramona adopt?", mode=mode, k=3)[0]
        assert first["recordId"] == ids[0], mode
    chews = search(alice, "Ramona chews", mode="KEYWORD", k=1)[0]
    assert chews["recordId"] == ids[2]
