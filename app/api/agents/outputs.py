"""Result types of agent state and learning: resume, patterns, relationship context."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
from strawberry.scalars import JSON

from app.api.outputs import from_fields
from app.api.types.agent_memory import AgentPerformance, FeedbackEvent, MemorySubject
from app.api.types.agents import Agent


@strawberry.type(description="How one pattern (strategy) fared in the feedback.")
class PatternStats:
    pattern: str
    count: int
    successes: int
    success_rate: float | None
    avg_rating: float | None = strawberry.field(description="Null when no feedback rated it.")
    rating_count: int


@strawberry.type(
    description="What an agent learned (seed 002 agent patterns): for one task type, or summed "
    "over all its task types; zero tasks when there is no feedback."
)
class AgentPatterns:
    agent_name: str
    task_type: str | None
    task_types: list[str] = strawberry.field(description="The task types summed here.")
    total_tasks: int
    successful_tasks: int
    success_rate: float | None = strawberry.field(description="Null when there are no tasks.")
    avg_rating: float | None
    rating_count: int
    patterns: list[PatternStats] = strawberry.field(description="Most used first.")
    updated_at: datetime | None


@strawberry.type(description="The feedback event kept and the counters it updated.")
class FeedbackLearned:
    event: FeedbackEvent
    performance: AgentPerformance
    patterns: AgentPatterns = strawberry.field(description="The task type's patterns now.")


@strawberry.type(
    description="A subject's relationship context with an agent (the RELATES_TO relationship)."
)
class RelationshipContext:
    subject: MemorySubject
    agent: Agent
    type: str
    custom_prompt: str | None
    memory_settings: JSON | None
    sessions: int
    interactions: int
    minutes: float
    last_contact: datetime | None
    started_at: datetime
    created_at: datetime
    updated_at: datetime


def agent_patterns(summary: dict[str, Any]) -> AgentPatterns:
    return from_fields(
        AgentPatterns,
        summary,
        task_types=list(summary["task_types"]),
        patterns=[PatternStats(**stats) for stats in summary["patterns"]],
    )


def relationship_context(record: dict[str, Any]) -> RelationshipContext:
    r = record["relationship"]
    return RelationshipContext(
        subject=MemorySubject.from_row(record["subject"]),
        agent=Agent.from_row(record["agent"]),
        type=r["type"],
        custom_prompt=r.get("custom_prompt"),
        memory_settings=r.get("memory_settings"),
        sessions=int(r["sessions"]),
        interactions=int(r["interactions"]),
        minutes=float(r["minutes"]),
        last_contact=r.get("last_contact"),
        started_at=r["started_at"],
        created_at=r["created_at"],
        updated_at=r["updated_at"],
    )
