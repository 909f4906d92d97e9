"""Persona rules without I/O: the core and its hash, the composite prompt's packing within a
budget, and the facts endSession accepts with their near-identical text."""

from __future__ import annotations

import math

import pytest

from app.domain.kernel.errors import ValidationFailed
from app.domain.personas import rules
from app.domain.personas.prompt import Line, core_lines, pack
from app.domain.sessions.fact_rules import FACT_TAG, check_facts, normalised
from app.model.enums import PersonaSection

CORE = {
    "system_prompt": " You are Brad. ",
    "traits": {"humor": "dry"},
    "behavioural_rules": ["Be direct"],
}


def test_the_core_hash_ignores_what_does_not_change_it() -> None:
    core = rules.check_core(CORE)
    assert core["system_prompt"] == "You are Brad."
    same = rules.check_core(CORE | {"system_prompt": "You are Brad.", "traits": {"humor": " dry"}})
    assert same["content_sha256"] == core["content_sha256"]
    other = rules.edited_core(core, {"behavioural_rules": ["Be kind"]})
    assert other["content_sha256"] != core["content_sha256"]
    assert other["traits"] == core["traits"]  # not given: kept


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"system_prompt": ""}, "system_prompt"),
        ({"traits": {"x": None}}, "traits"),
        ({"traits": {"x": float("nan")}}, "traits"),
        ({"traits": {str(n): n for n in range(65)}}, "traits"),
        ({"behavioural_rules": "be nice"}, "behavioural_rules"),
        ({"behavioural_rules": ["x"] * 101}, "behavioural_rules"),
    ],
)
def test_bad_cores_name_their_field(fields: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationFailed) as raised:
        rules.check_core(CORE | fields)
    assert raised.value.details["field"] == field


def test_packing_keeps_section_order_and_pays_each_header_once() -> None:
    version = {"id": "v1", "system_prompt": "You are Brad.", "traits": {}, "behavioural_rules": []}
    candidates = {
        PersonaSection.PROCEDURES: [Line("- greet: Yo", "p1")],
        PersonaSection.CORE: core_lines(version),
        PersonaSection.FACTS: [Line("- " + "x" * 400, "f1"), Line("- short", "f2")],
    }
    packed = pack(candidates, name="al", budget=40)
    assert [s.section for s in packed.sections] == [
        PersonaSection.CORE,
        PersonaSection.FACTS,
        PersonaSection.PROCEDURES,
    ]
    assert packed.used_ids == ["v1", "f2", "p1"]  # the long fact did not fit; shorter ones did
    assert packed.budget.omitted == 1 and packed.budget.used <= 40
    assert sum(s.tokens for s in packed.sections) == packed.budget.used
    assert math.ceil(len(packed.prompt) / 4) <= packed.budget.used
    assert packed.prompt.startswith(
        "=== CORE IDENTITY ===\nYou are Brad.\n=== WHAT YOU KNOW ABOUT AL"
    )


def test_near_identical_texts_normalise_alike() -> None:
    assert normalised("Alice's allergic to PEANUTS!") == normalised("alice s  allergic to peanuts")
    assert normalised("Ｆｕｌｌ width") == "full width"
    assert normalised("loves climbing") != normalised("loved climbing")


def test_facts_are_checked_as_memories() -> None:
    facts = check_facts([{"text": " Works  at\nTechCorp ", "key": "job", "tags": ["Work"]}])
    assert facts[0].text == "Works at TechCorp" and facts[0].tags == ["work", FACT_TAG]
    assert facts[0].priority == 5
    for bad in ([{"text": "!!"}], [{"text": "x", "priority": 0}], [{"text": "x", "key": " "}], {}):
        with pytest.raises(ValidationFailed):
            check_facts(bad)
