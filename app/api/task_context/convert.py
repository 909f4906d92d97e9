"""The assembled context as the GraphQL types of outputs.py."""

from __future__ import annotations

from typing import Any

import strawberry

from app.api.task_context.outputs import (
    ContextConstraints,
    ContextEpisode,
    ContextEvent,
    ContextLesson,
    ContextPlan,
    ContextPlanNode,
    ContextThread,
    TaskContext,
)
from app.domain.task_context import TaskContext as Assembled
from app.domain.task_context.items import ContextItem


def _values(item: ContextItem, *, ranked: bool = True) -> dict[str, Any]:
    """The item's content, its tokens, and its score and why (enum fields stay raw values:
    the enum types serialize those)."""
    values = dict(item.content) | {"tokens": item.tokens}
    if ranked:
        values |= {"score": item.score, "why": list(item.why)}
    return values


def task_context(found: Assembled) -> TaskContext:
    def one(name: str) -> ContextItem | None:
        items = found.section(name)
        return items[0] if items else None

    plan, constraints = one("plan"), one("constraints")
    return TaskContext(
        plan=ContextPlan(**_values(plan, ranked=False)) if plan else None,
        constraints=ContextConstraints(**_values(constraints, ranked=False))
        if constraints
        else None,
        plan_nodes=[ContextPlanNode(**_values(i)) for i in found.section("plan_node")],
        lessons=[ContextLesson(**_values(i)) for i in found.section("lesson")],
        threads=[ContextThread(**_values(i)) for i in found.section("thread")],
        episodes=[ContextEpisode(**_values(i)) for i in found.section("episode")],
        raw_events=[ContextEvent(**_values(i, ranked=False)) for i in found.section("event")],
        used_ids=[strawberry.ID(i) for i in found.used_ids],
        token_budget=found.token_budget,
        tokens_used=found.tokens_used,
        omitted=found.omitted,
    )
