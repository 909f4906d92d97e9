"""What a conversation turn is indexed with, the query's content words and the neighbour boost."""

from __future__ import annotations

import json

import pytest

from app.retrieval.fusion import demote_repeats, lift_summaries, neighbour_boost
from app.retrieval.search_queries import content_words
from app.retrieval.searchable import SEARCHABLE, conversation_text, texts_for, utterance


def test_a_turn_reads_as_speaker_text_and_media_caption() -> None:
    metadata = json.dumps({"speaker": "Mel", "media_caption": "a photo of a lake"})
    assert utterance({"text": "Look at this!", "metadata": metadata}) == (
        "Mel: Look at this! [media: a photo of a lake]"
    )
    assert utterance({"text": " hi ", "metadata": {"speaker": " Jo "}}) == "Jo: hi"
    assert utterance({"text": "plain", "metadata": "not json"}) == "plain"
    assert utterance({"text": None, "metadata": None}) == ""


def test_keyword_text_has_the_previous_turn_and_the_own_words_twice() -> None:
    question = {"text": "How was the marathon?", "metadata": {"speaker": "Ann"}}
    reply = {"text": "Under four hours!", "metadata": {"speaker": "Bo"}}
    texts = conversation_text(reply, question)
    assert texts.vector == "Bo: Under four hours!"
    assert texts.keyword.split("\n") == [
        "Ann: How was the marathon?",
        "Bo: Under four hours!",
        "Bo: Under four hours!",
    ]
    assert conversation_text(reply, None).keyword == "Bo: Under four hours!\nBo: Under four hours!"
    assert conversation_text({"text": ""}, question).keyword == ""


def test_other_records_index_one_text_for_both_signals() -> None:
    lesson = texts_for(SEARCHABLE["Lesson"], {"statement": "Check the fuse first"}, None)
    assert lesson.keyword == lesson.vector == "Check the fuse first"
    event = texts_for(SEARCHABLE["ConversationEvent"], {"text": "hi", "metadata": None}, None)
    assert event.vector == "hi" and event.keyword == "hi\nhi"


def test_content_words_drop_function_words_unless_nothing_is_left() -> None:
    assert content_words("When did Caroline go to the LGBTQ support group?") == (
        "Caroline go LGBTQ support group"
    )
    assert content_words("What is it?") == "What is it"
    assert content_words("not cheap") == "not cheap"
    assert content_words("") == ""


def test_neighbour_boost_adds_a_share_of_the_best_neighbour() -> None:
    scores = {"q": 1.0, "answer": 0.2, "far": 0.3}
    boosted = neighbour_boost(scores, {"answer": ["q", "missing"], "q": ["answer"]}, weight=0.5)
    assert boosted["answer"] == pytest.approx(0.7)
    assert boosted["q"] == pytest.approx(1.1)
    assert boosted["far"] == pytest.approx(0.3)
    # Below weight 1 the better match keeps its place above its neighbour.
    assert boosted["q"] > boosted["answer"] > boosted["far"]
    assert neighbour_boost({}, {}, weight=0.5) == {}


def test_of_a_record_and_its_one_source_the_lower_scored_is_demoted() -> None:
    scores = {"observation": 0.9, "turn": 0.8, "other": 0.5, "summary": 0.7, "two": 0.6}
    sources = {
        "observation": ["turn"],  # derived from the turn alone: says what it says
        "summary": ["turn", "other"],  # of two records: no repeat of either
        "two": ["gone"],  # its source is no candidate
        "turn": [],
    }
    demoted = demote_repeats(scores, sources, factor=0.5)
    assert demoted == {**scores, "turn": pytest.approx(0.4)}
    assert sorted(demoted, key=lambda rid: -demoted[rid])[:3] == ["observation", "summary", "two"]
    # The source ranked higher: the derived record is the one demoted.
    flipped = demote_repeats({"observation": 0.3, "turn": 0.8}, sources, factor=0.5)
    assert flipped == {"observation": pytest.approx(0.15), "turn": 0.8}
    assert demote_repeats({}, {}, factor=0.5) == {}


def test_a_record_derived_from_several_candidates_gains_from_the_best_of_them() -> None:
    scores = {"summary": 0.1, "turn": 0.8, "other turn": 0.6, "observation": 0.5, "lone": 0.2}
    sources = {
        "summary": ["turn", "other turn", "not found"],  # of several: gains half of 0.8
        "observation": ["turn"],  # of one record: a repeat (demote_repeats), not a summary
        "lone": ["not found", "nor this"],  # none of its sources is a candidate
        "turn": [],
    }
    lifted = lift_summaries(scores, sources, weight=0.5)
    assert lifted == {**scores, "summary": pytest.approx(0.1 + 0.5 * 0.8)}
    assert sorted(lifted, key=lambda rid: -lifted[rid])[:3] == ["turn", "other turn", "summary"]
    # From the scores given: a summary among the sources of another lifts it by its own
    # score, not by what it gained itself.
    nested = lift_summaries(
        {"week": 0.1, "day": 0.2, "turn": 0.9, "x": 0.1},
        {"week": ["day", "x"], "day": ["turn", "x"]},
        weight=0.5,
    )
    assert nested["day"] == pytest.approx(0.2 + 0.45) and nested["week"] == pytest.approx(0.2)
    # Below weight 1, a source that matches much better than its summary stays above it.
    alone = lift_summaries({"s": 0.3, "a": 1.0, "b": 0.1}, {"s": ["a", "b"]}, weight=0.5)
    assert alone["s"] == pytest.approx(0.8) and alone["s"] < alone["a"]
    assert lift_summaries({}, {}, weight=0.5) == {}
