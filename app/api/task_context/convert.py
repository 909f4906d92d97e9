"""The assembled context as the GraphQL types of outputs.py."""

from __future__ import annotations

from enum import Enum
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
from app.model.enums import (
    ConversationEventType,
    ConversationPlatform,
    EpisodeStatus,
    EventDirection,
    HandoffState,
    LessonScope,
    LessonType,
    PlanNodeStatus,
    PlanNodeType,
    PlanStatus,
    ThreadStatus,
    ThreadType,
)
from app.retrieval.context import TaskContext as Assembled
from app.retrieval.context_items import ContextItem


def _values(item: ContextItem, *, ranked: bool = True, **enums: type[Enum]) -> dict[str, Any]:
    """The item's content (enum fields as their enums), its tokens, and its score and why."""
    values = dict(item.content) | {"tokens": item.tokens}
    if ranked:
        values |= {"score": item.score, "why": list(item.why)}
    for name, enum in enums.items():
        values[name] = enum(values[name])
    return values


def task_context(found: Assembled) -> TaskContext:
    def one(name: str) -> ContextItem | None:
        items = found.section(name)
        return items[0] if items else None

    plan, constraints = one("plan"), one("constraints")
    return TaskContext(
        plan=ContextPlan(**_values(plan, ranked=False, status=PlanStatus)) if plan else None,
        constraints=ContextConstraints(**_values(constraints, ranked=False))
        if constraints
        else None,
        plan_nodes=[
            ContextPlanNode(**_values(i, node_type=PlanNodeType, status=PlanNodeStatus))
            for i in found.section("plan_node")
        ],
        lessons=[
            ContextLesson(**_values(i, scope=LessonScope, lesson_type=LessonType))
            for i in found.section("lesson")
        ],
        threads=[
            ContextThread(
                **_values(
                    i,
                    platform=ConversationPlatform,
                    thread_type=ThreadType,
                    status=ThreadStatus,
                    handoff_state=HandoffState,
                )
            )
            for i in found.section("thread")
        ],
        episodes=[
            ContextEpisode(**_values(i, status=EpisodeStatus)) for i in found.section("episode")
        ],
        raw_events=[
            ContextEvent(
                **_values(
                    i, ranked=False, direction=EventDirection, event_type=ConversationEventType
                )
            )
            for i in found.section("event")
        ],
        used_ids=[strawberry.ID(i) for i in found.used_ids],
        token_budget=found.token_budget,
        tokens_used=found.tokens_used,
        omitted=found.omitted,
    )
