"""The LoCoMo recall metric on tiny hand-made examples."""

from __future__ import annotations

import pytest

from bench.locomo_data import conversation
from bench.locomo_metric import Retrieved, Scored, by_category, dia_ids, recall_at


def turn(*ids: str) -> Retrieved:
    return Retrieved(turns=ids)


def test_dia_ids_are_normalised_from_the_malformed_forms_of_the_release() -> None:
    assert dia_ids("D8:6") == ("D8:6",)
    assert dia_ids("D8:6; D9:17") == ("D8:6", "D9:17")
    assert dia_ids("D:11:26") == ("D11:26",)
    assert dia_ids(["D15:3", "D15:5", "D15:3"]) == ("D15:3", "D15:5")
    assert dia_ids("['D15:3', 'D15:5']") == ("D15:3", "D15:5")
    assert dia_ids("") == ()


def test_recall_is_the_fraction_of_evidence_in_the_top_k() -> None:
    ranked = [turn("D1:1"), turn("D1:2"), turn("D2:7"), turn("D3:1")]
    assert recall_at(["D2:7", "D3:1"], ranked, 2) == 0.0
    assert recall_at(["D2:7", "D3:1"], ranked, 3) == 0.5
    assert recall_at(["D2:7", "D3:1"], ranked, 4) == 1.0
    assert recall_at(["D1:2"], ranked, 10) == 1.0


def test_an_observation_counts_for_its_sources_and_a_summary_for_its_whole_session() -> None:
    observation = Retrieved(turns=("D4:2", "D4:5"))
    summary = Retrieved(sessions=(7,))
    assert recall_at(["D4:5", "D7:30", "D8:1"], [observation], 1) == pytest.approx(1 / 3)
    assert recall_at(["D4:5", "D7:30", "D8:1"], [observation, summary], 2) == pytest.approx(2 / 3)
    assert recall_at(["D7:1", "D7:2"], [summary], 1) == 1.0
    assert recall_at(["D17:1"], [summary], 1) == 0.0


def test_overall_covers_categories_one_to_four_and_category_five_stands_apart() -> None:
    rows = [
        Scored(1, {5: 1.0, 10: 1.0}),
        Scored(4, {5: 0.0, 10: 0.5}),
        Scored(5, {5: 1.0, 10: 1.0}),
    ]
    figures = by_category(rows, [5, 10])
    assert figures["overall"] == {"questions": 2, "r@5": 0.5, "r@10": 0.75}
    assert figures["cat5"] == {"questions": 1, "r@5": 1.0, "r@10": 1.0}
    assert figures["cat4"]["r@10"] == 0.5
    assert "cat2" not in figures


def test_a_sample_is_read_with_its_observation_sources_and_summaries() -> None:
    sample = {
        "sample_id": "s1",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_2": [{"speaker": "Bo", "dia_id": "D2:1", "text": "later"}],
            "session_2_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "hi", "blip_caption": "a dog"},
                {"speaker": "Bo", "dia_id": "D1:2", "text": "hello"},
            ],
            "session_1_date_time": "not a date",
        },
        "observation": {"session_1_observation": {"Ann": [["Ann has a dog.", ["D1:1"]]]}},
        "session_summary": {"session_1_summary": "They greet."},
        "qa": [
            {"question": "Q?", "answer": "A", "evidence": ["D:1:2"], "category": 4},
            {"question": "Trick?", "adversarial_answer": "x", "evidence": [], "category": 5},
        ],
    }
    conv = conversation(sample)
    assert [t.dia_id for t in conv.turns] == ["D1:1", "D1:2", "D2:1"]
    assert conv.turns[0].caption == "a dog" and conv.turns[0].occurred_at is None
    assert conv.turns[2].occurred_at is not None and conv.turns[2].occurred_at.day == 8
    assert [(n.kind, n.turns, n.session) for n in conv.notes] == [
        ("observation", ("D1:1",), 1),
        ("session_summary", (), 1),
    ]
    assert [(q.category, q.evidence) for q in conv.questions] == [(4, ("D1:2",)), (5, ())]
