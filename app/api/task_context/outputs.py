"""What the context query returns: compact sections (only the fields the budget counted)."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

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

TOKENS = "Estimated tokens of this item's content fields (scores and why not counted)."


@strawberry.type
class ContextPlan:
    id: strawberry.ID
    name: str
    status: PlanStatus
    summary: str | None
    constraints_ref: str | None
    tokens: int = strawberry.field(description=TOKENS)


@strawberry.type(description="The versions a plan's rules were frozen at (not their content).")
class ContextConstraints:
    id: strawberry.ID
    brandkit_version_id: str
    kb_version_id: str
    policies_version_id: str
    provider_config_version_id: str
    blueprint_set_version_id: str
    notes: str | None
    tokens: int = strawberry.field(description=TOKENS)


@strawberry.type
class ContextPlanNode:
    id: strawberry.ID
    node_type: PlanNodeType
    title: str
    status: PlanNodeStatus
    summary: str | None
    quality_score: int | None
    score: float | None = strawberry.field(description="Search score (null: filled by quality).")
    why: list[str]
    tokens: int = strawberry.field(description=TOKENS)


@strawberry.type
class ContextLesson:
    id: strawberry.ID
    scope: LessonScope
    lesson_type: LessonType
    statement: str
    effective_confidence: float
    score: float | None = strawberry.field(
        description="Cosine similarity to the task x effective confidence (the ranking)."
    )
    why: list[str]
    tokens: int = strawberry.field(description=TOKENS)


@strawberry.type
class ContextThread:
    id: strawberry.ID
    platform: ConversationPlatform
    thread_type: ThreadType
    status: ThreadStatus
    handoff_state: HandoffState
    summary_short: str | None
    open_questions: JSON | None
    last_event_at: datetime | None
    score: float | None = strawberry.field(description="Search score (null: thread given).")
    why: list[str]
    tokens: int = strawberry.field(description=TOKENS)


@strawberry.type
class ContextEpisode:
    id: strawberry.ID
    agent_name: str
    task_class: str
    status: EpisodeStatus
    output_summary: str | None
    created_at: datetime
    score: float | None
    why: list[str]
    tokens: int = strawberry.field(description=TOKENS)


@strawberry.type
class ContextEvent:
    id: strawberry.ID
    thread_id: strawberry.ID
    sequence: int
    direction: EventDirection
    event_type: ConversationEventType
    text: str | None
    text_uri: str | None = strawberry.field(description="Where a long text is (object storage).")
    created_at: datetime
    tokens: int = strawberry.field(description=TOKENS)


@strawberry.type(
    description="A bounded context for a task: each section as far as the token budget allows, "
    "packed in this priority order: plan, constraints, planNodes, lessons, threads, episodes, "
    "rawEvents."
)
class TaskContext:
    plan: ContextPlan | None
    constraints: ContextConstraints | None
    plan_nodes: list[ContextPlanNode] = strawberry.field(description="Best match first.")
    lessons: list[ContextLesson] = strawberry.field(description="Highest score first.")
    threads: list[ContextThread]
    episodes: list[ContextEpisode] = strawberry.field(description="Only when agent is given.")
    raw_events: list[ContextEvent] = strawberry.field(
        description="Only when includeRawEvents: per thread, its latest events in order."
    )
    used_ids: list[strawberry.ID] = strawberry.field(
        description="Every record in this context, in packing order: an episode's retrieval_refs."
    )
    token_budget: int
    tokens_used: int = strawberry.field(description="The sum of the items' tokens.")
    omitted: int = strawberry.field(description="Candidates left out for the budget.")
