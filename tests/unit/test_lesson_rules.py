"""Lesson rules (decay, retirement, evidence boost, supersession) and the MemoryLink vocabulary
held to the model, without servers."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta

import pytest

from app.domain.kernel.errors import InvalidTransition, ValidationFailed
from app.domain.lessons import links as memory_links
from app.domain.lessons import rules
from app.graph.cypher_files import load_migrations, named_query
from app.graph.identifiers import RelType
from app.model import MODEL
from app.model.enums import MemoryRelation

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
NEW = {
    "scope": "platform",
    "lesson_type": "what_worked",
    "statement": "  Reels with a price hook get twice the saves  ",
    "confidence": 0.8,
    "decay_half_life_days": 30,
}


def effective(confidence: float, half_life: float, age: timedelta) -> float:
    return rules.effective_confidence(
        confidence=confidence, half_life_days=half_life, last_evidence_at=NOW - age, now=NOW
    )


def test_confidence_halves_every_half_life() -> None:
    assert effective(0.8, 30, timedelta(0)) == pytest.approx(0.8)
    assert effective(0.8, 30, timedelta(days=30)) == pytest.approx(0.4)
    assert effective(0.8, 30, timedelta(days=60)) == pytest.approx(0.2)
    assert effective(0.8, 30, timedelta(days=15)) == pytest.approx(0.8 / math.sqrt(2))
    assert effective(0.8, 7, timedelta(days=30)) < effective(0.8, 90, timedelta(days=30))
    # Evidence stamped in the future does not raise confidence above the stored value.
    assert effective(0.8, 30, -timedelta(days=10)) == pytest.approx(0.8)


def test_retired_strictly_below_the_threshold() -> None:
    assert rules.is_retired(0.1999, threshold=0.2)
    assert not rules.is_retired(0.2, threshold=0.2)
    # 0.8 decays below 0.2 just after two half-lives.
    assert not rules.is_retired(effective(0.8, 30, timedelta(days=59)), threshold=0.2)
    assert rules.is_retired(effective(0.8, 30, timedelta(days=61)), threshold=0.2)


def test_new_evidence_raises_confidence_toward_one() -> None:
    assert rules.boosted_confidence(0.5, new_evidence=0, boost=0.1) == pytest.approx(0.5)
    assert rules.boosted_confidence(0.5, new_evidence=1, boost=0.1) == pytest.approx(0.55)
    assert rules.boosted_confidence(0.5, new_evidence=2, boost=0.1) == pytest.approx(0.595)
    assert rules.boosted_confidence(0.9, new_evidence=5, boost=0.5) == pytest.approx(0.996875)
    assert rules.boosted_confidence(0.99, new_evidence=500, boost=0.5) <= 1.0
    assert rules.boosted_confidence(0.3, new_evidence=3, boost=0.0) == pytest.approx(0.3)
    with pytest.raises(ValueError):
        rules.boosted_confidence(0.5, new_evidence=1, boost=1.0)


def test_evidence_changes_restart_the_clock_and_may_revive() -> None:
    lesson = {"id": "l1", "confidence": 0.5, "retired": True}
    assert rules.evidence_changes(lesson, new_evidence=0, now=NOW, boost=0.1, threshold=0.2) == {}
    changes = rules.evidence_changes(lesson, new_evidence=1, now=NOW, boost=0.1, threshold=0.2)
    assert changes == {"confidence": pytest.approx(0.55), "last_evidence_at": NOW, "retired": False}
    weak = {"id": "l2", "confidence": 0.05, "retired": True}
    still = rules.evidence_changes(weak, new_evidence=1, now=NOW, boost=0.1, threshold=0.2)
    assert still["retired"] is True and still["confidence"] == pytest.approx(0.145)


def test_new_lesson_validation() -> None:
    stored = rules.check_new_lesson(NEW)
    assert stored["statement"] == "Reels with a price hook get twice the saves"
    assert stored["decay_half_life_days"] == 30.0 and stored["confidence"] == 0.8
    for field, bad in [
        ("confidence", 1.01),
        ("confidence", -0.1),
        ("confidence", float("nan")),
        ("confidence", True),
        ("confidence", "0.5"),
        ("decay_half_life_days", 0),
        ("decay_half_life_days", -3),
        ("decay_half_life_days", 100_000),
        ("statement", "   "),
        ("statement", "x" * 2001),
        ("scope", "galaxy"),
        ("lesson_type", "what_happened"),
    ]:
        with pytest.raises(ValidationFailed, match=field):
            rules.check_new_lesson(NEW | {field: bad})


def test_a_lesson_created_below_the_threshold_is_born_retired() -> None:
    strong = rules.initial_state({"confidence": 0.2}, now=NOW, threshold=0.2)
    assert strong == {"valid_from": NOW, "last_evidence_at": NOW, "retired": False}
    assert rules.initial_state({"confidence": 0.1}, now=NOW, threshold=0.2)["retired"] is True


def test_supersede_rules() -> None:
    current = {"id": "old", "valid_to": None, "superseded_by": None}
    rules.check_can_supersede(current)
    rules.check_can_take_evidence(current)
    superseded = {"id": "old", "valid_to": NOW, "superseded_by": "new"}
    with pytest.raises(InvalidTransition, match="already superseded by new"):
        rules.check_can_supersede(superseded)
    with pytest.raises(InvalidTransition, match="superseded by new"):
        rules.check_can_take_evidence(superseded)


def test_lesson_filter_validation() -> None:
    assert rules.check_lesson_filter({}) == {"scope": None, "lesson_type": None, "text": None}
    params = rules.check_lesson_filter({"scope": "client", "statement_contains": "hook"})
    assert params == {"scope": "client", "lesson_type": None, "text": "hook"}
    with pytest.raises(ValidationFailed):
        rules.check_lesson_filter({"lesson_type": "nope"})


def test_link_types_are_the_memory_relations_with_link_id_indexes() -> None:
    statements = "\n".join(s for m in load_migrations() for s in m.statements)
    assert memory_links.LINK_TYPES == tuple(r.value.upper() for r in MemoryRelation)
    for rel_type in memory_links.LINK_TYPES:
        assert rel_type in {t.value for t in RelType}
        assert f"()-[r:{rel_type}]-() ON (r.link_id)" in statements
    assert memory_links.rel_types(None) == list(memory_links.LINK_TYPES)
    assert memory_links.rel_types(["caused", MemoryRelation.SUPPORTS]) == ["CAUSED", "SUPPORTS"]
    with pytest.raises(ValidationFailed, match="relations"):
        memory_links.rel_types(["likes"])


def test_record_labels_and_label_filters() -> None:
    model = {cls.__name__ for cls in MODEL}
    assert set(memory_links.RECORD_LABELS) == model - {"Client", "ApiKey"}
    assert memory_links.check_labels(None) is None
    assert memory_links.check_labels(["Lesson", "Asset", "Lesson"]) == ["Lesson", "Asset"]
    for bad in (["ApiKey"], ["Client"], ["lesson"]):
        with pytest.raises(ValidationFailed, match="labels"):
            memory_links.check_labels(bad)


def test_query_files_name_only_model_labels_and_memory_relations() -> None:
    links = "|".join(memory_links.LINK_TYPES)
    for name in ("neighbourhood", "contradictions", "episodes_causing_failure"):
        text = named_query(name)
        for disjunction in re.findall(r"\[\w*:([A-Z_|]+)[*\]]", text):
            assert set(disjunction.split("|")) <= {t.value for t in RelType}, name
    neighbourhood = named_query("neighbourhood")
    assert f"[links:{links}*1..4]" in neighbourhood and f"[r:{links}]" in neighbourhood
    written = memory_links.LABEL_LIST.findall(neighbourhood)
    assert len(written) == 1 and set(written[0].split("|")) <= set(memory_links.RECORD_LABELS)


def test_the_api_runs_neighbourhood_with_every_record_label_of_the_model() -> None:
    query = memory_links.record_query("neighbourhood")
    assert query.count(memory_links.RECORDS) == 1
    assert all(f"`{label}`" in query for label in memory_links.RECORD_LABELS)
    # Relationship type lists (upper case) are never taken for a label list.
    assert f"[links:{'|'.join(memory_links.LINK_TYPES)}*1..4]" in query
    with pytest.raises(ValueError):
        memory_links.with_record_labels("MATCH (n:Plan {id: $id}) RETURN n")


def test_the_cypher_decay_expression_names_only_lesson_fields() -> None:
    expression = rules.effective_cypher("l")
    assert set(re.findall(r"l\.(\w+)", expression)) == {
        "confidence",
        "last_evidence_at",
        "decay_half_life_days",
    }
