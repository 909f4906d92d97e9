"""Agent configuration edits and recall's merge (seed 001): the rules, without I/O."""

from __future__ import annotations

from typing import Any

import pytest

from app.domain.agents import config_rules, recall_rules
from app.domain.agents.recall_rules import FUSION_K, RecallSource
from app.domain.kernel.errors import Conflict, ValidationFailed

CURRENT = {"version": 3, "directives": ["be brief"], "config_overrides": '{"model":"small"}'}


def edit(**fields: Any) -> dict[str, Any]:
    return config_rules.check_edit({"reason": "tuning"} | fields)


def test_an_edit_keeps_what_it_leaves_out_and_replaces_the_rest() -> None:
    state = config_rules.next_state(CURRENT, edit(config_overrides={"temperature": 0.2}))
    assert state == {"directives": ["be brief"], "config_overrides": '{"temperature":0.2}'}
    state = config_rules.next_state(CURRENT, edit(directives=[]))
    assert state == {"directives": [], "config_overrides": '{"model":"small"}'}


def test_an_edit_equal_to_the_current_version_saves_nothing() -> None:
    same = edit(directives=["  be brief "], config_overrides={"model": "small"})
    assert config_rules.next_state(CURRENT, same) is None
    # The first version is always saved, even when it holds nothing.
    assert config_rules.next_state(None, edit(directives=[])) == {
        "directives": [],
        "config_overrides": "{}",
    }


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({}, "directives"),  # nothing to change
        ({"directives": ["ok", " "]}, "directives"),
        ({"directives": ["x" * 2001]}, "directives"),
        ({"directives": ["d"] * 101}, "directives"),
        ({"directives": "one string"}, "directives"),
        ({"config_overrides": ["not", "an", "object"]}, "config_overrides"),
        ({"config_overrides": {"big": "x" * 20_000}}, "config_overrides"),
        ({"directives": [], "reason": "  "}, "reason"),
        ({"directives": [], "expected_version": -1}, "expected_version"),
        ({"directives": [], "expected_version": True}, "expected_version"),
    ],
)
def test_bad_edits_name_their_field(fields: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationFailed) as caught:
        config_rules.check_edit({"reason": "why"} | fields)
    assert caught.value.details["field"] == field


def test_an_edit_from_an_older_version_conflicts() -> None:
    config_rules.check_base(None, 3, agent_name="a")
    config_rules.check_base(3, 3, agent_name="a")
    with pytest.raises(Conflict, match="at version 3, and this edit was made from version 2"):
        config_rules.check_base(2, 3, agent_name="a")


def test_fusion_interleaves_by_rank_memories_first_on_ties() -> None:
    hits = [({"id": f"m{i}"}, 1.0 - i / 10, ["vector"]) for i in range(3)]
    results = [({"id": f"c{i}"}, []) for i in range(2)]
    items = recall_rules.fuse(hits, results)
    order = [(item.record or item.cycle or {})["id"] for item in items]
    assert order == ["m0", "c0", "m1", "c1", "m2"]
    assert items[0].score == pytest.approx(1 / (FUSION_K + 1))
    assert items[1].source is RecallSource.ACTION_RESULT and items[1].why == ["action result #1"]
    assert items[0].search_score == 1.0 and items[1].search_score is None


def test_results_holding_the_query_terms_rank_before_newer_ones() -> None:
    newest = {"id": "new", "thoughts": "looked at the weather"}
    middle = {"id": "mid", "output": {"deployed": "service api"}, "error": None}
    oldest = {"id": "old", "tool_call": {"name": "deploy"}, "error": "API timeout"}
    ranked = recall_rules.rank_results([newest, middle, oldest], "Deploy the API")
    assert [(c["id"], terms) for c, terms in ranked] == [
        ("old", ["api", "deploy"]),
        ("mid", ["api"]),
        ("new", []),  # "the" is too common to count
    ]


def test_recall_requests_are_checked() -> None:
    ok = {"text": " budget ", "k": 5, "recent_results": 0}
    assert recall_rules.check_request(ok) == {"text": "budget", "k": 5, "recent_results": 0}
    for bad, field in (
        ({"text": ""}, "text"),
        ({"k": 0}, "k"),
        ({"recent_results": 51}, "recent_results"),
    ):
        with pytest.raises(ValidationFailed) as caught:
            recall_rules.check_request(ok | bad)
        assert caught.value.details["field"] == field
    assert recall_rules.agent_filter({"kinds": ["semantic"]}, "a") == {
        "kinds": ["semantic"],
        "agent": "a",
    }
    with pytest.raises(ValidationFailed, match="where.agent"):
        recall_rules.agent_filter({"agent": "b"}, "a")
