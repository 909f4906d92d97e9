"""Agent state and learning rules: feedback counters and pattern summaries, the cycle status
machine, agent state versions, relationship counters and token budgets."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.domain.agents import cycle_rules as cycles
from app.domain.agents import learning_rules as learning
from app.domain.agents import subject_rules as subjects
from app.domain.kernel.errors import Conflict, InvalidTransition, ValidationFailed
from app.retrieval.budget import TokenBudget, estimate_tokens


def feedback(**fields: object) -> dict[str, object]:
    return learning.check_feedback({"task_type": "campaign", "success": True} | fields)


def test_feedback_folds_into_counters_and_pattern_stats() -> None:
    state: dict[str, object] = {}
    for event in (
        feedback(rating=5, patterns=["persona", "urgency"]),
        feedback(success=False, rating=2, patterns=["urgency", " urgency "]),
        feedback(patterns=["persona"]),
    ):
        state |= learning.learned(state, event)
    assert (state["total"], state["successes"], state["rating_count"]) == (3, 2, 2)
    summary = learning.summary([state])
    assert summary["success_rate"] == 2 / 3 and summary["avg_rating"] == 3.5
    assert summary["patterns"] == [
        {
            "pattern": "persona",
            "count": 2,
            "successes": 2,
            "success_rate": 1.0,
            "avg_rating": 5.0,
            "rating_count": 1,
        },
        {
            "pattern": "urgency",
            "count": 2,
            "successes": 1,
            "success_rate": 0.5,
            "avg_rating": 3.5,
            "rating_count": 2,
        },
    ]


def test_summary_of_nothing_has_no_rates() -> None:
    empty = learning.agent_patterns([], agent_name="a", task_type=None)
    assert empty["total_tasks"] == 0 and empty["success_rate"] is None
    assert empty["avg_rating"] is None and empty["patterns"] == [] and empty["updated_at"] is None


@pytest.mark.parametrize(
    "fields",
    [
        {"success": "yes"},
        {"rating": 5.5},
        {"rating": float("nan")},
        {"rating": True},
        {"task_type": "-leading"},
        {"patterns": [""]},
        {"patterns": "persona"},
    ],
)
def test_bad_feedback_is_refused(fields: dict[str, object]) -> None:
    with pytest.raises(ValidationFailed):
        feedback(**fields)


def test_cycles_complete_once_and_need_a_proposal() -> None:
    with pytest.raises(ValidationFailed):
        cycles.check_proposal({})
    assert cycles.check_proposal({"plan": ["a"]})["plan"] == '["a"]'
    cycles.check_completion("proposed", "failed", cycle_id="c")
    with pytest.raises(InvalidTransition):
        cycles.check_completion("succeeded", "failed", cycle_id="c")
    with pytest.raises(ValidationFailed):
        cycles.check_result({"status": "proposed"})


def test_state_versions_are_checked_only_when_expected() -> None:
    cycles.check_version(None, 7, agent_name="a")
    cycles.check_version(7, 7, agent_name="a")
    with pytest.raises(Conflict) as refused:
        cycles.check_version(6, 7, agent_name="a")
    assert refused.value.details["current_version"] == 7
    with pytest.raises(ValidationFailed):
        cycles.state_text({"big": "x" * cycles.MAX_STATE_JSON})
    with pytest.raises(ValidationFailed):
        cycles.check_expected_version(-1)


def test_touch_steps_are_bounded_numbers() -> None:
    steps = subjects.check_touch({"sessions": 1, "interactions": 0, "minutes": 2})
    assert steps == {"sessions": 1, "interactions": 0, "minutes": 2.0}
    for bad in ({"sessions": True}, {"minutes": float("inf")}, {"interactions": -1}):
        with pytest.raises(ValidationFailed):
            subjects.check_touch({"sessions": 1, "interactions": 0, "minutes": 0} | bad)


def test_budget_packs_greedily_in_order() -> None:
    assert estimate_tokens("abcd", None, "e") == 2
    assert estimate_tokens({"at": datetime(2026, 1, 1, tzinfo=UTC)}) > 0
    budget = TokenBudget(10)
    assert budget.pack([6, 5, 4, 1], lambda n: n) == [6, 4]
    assert (budget.used, budget.omitted) == (10, 2)
