"""Agent state and learning (seeds 001-004): subjects, agent cycles, feedback events and the
learned per-task counters; fields held to app/model by tests."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from app.api.types.base import NodeType, node_type, to_many, to_one
from app.model.enums import AgentCycleStatus


@node_type("MemorySubject")
@strawberry.type(
    description="The user (or other party) memories are about: a profile, and relationship "
    "context with agents (see `relationship`)."
)
class MemorySubject(NodeType):
    id: strawberry.ID
    external_ref: str = strawberry.field(description="The caller's own id of the subject.")
    display_name: str | None
    profile: JSON | None
    created_at: datetime
    updated_at: datetime

    agents = to_many("Agent", "Agents it has relationship context with (RELATES_TO).")


@node_type("AgentCycle")
@strawberry.type(
    description="One think-act cycle of an agent (seed 001): the proposal (thoughts, tool call, "
    "plan) and, once completed, the result (output, error)."
)
class AgentCycle(NodeType):
    id: strawberry.ID
    agent_name: str
    sequence: int = strawberry.field(description="1, 2, ... per agent, in recording order.")
    thoughts: str | None
    tool_call: JSON | None
    plan: JSON | None
    output: JSON | None
    error: str | None
    status: AgentCycleStatus
    finished_at: datetime | None
    created_at: datetime
    updated_at: datetime

    agent = to_one("Agent", "The agent whose cycle it is (HAS_CYCLE).")
    memories = to_many("MemoryRecord", "Memory records the cycle produced (PRODUCED).")


@node_type("FeedbackEvent")
@strawberry.type(description="Raw feedback on one task of an agent, kept as history.")
class FeedbackEvent(NodeType):
    id: strawberry.ID
    agent_name: str
    task_type: str
    success: bool
    rating: float | None
    patterns: list[str] | None
    comment: str | None
    created_at: datetime
    updated_at: datetime


@node_type("AgentPerformance")
@strawberry.type(
    description="What an agent learned on one task type: counters updated atomically from "
    "feedback (see agentPatterns for the derived rates)."
)
class AgentPerformance(NodeType):
    id: strawberry.ID
    agent_name: str
    task_type: str
    total: int
    successes: int
    rating_sum: float
    rating_count: int
    patterns: JSON | None = strawberry.field(
        description="{pattern: {count, successes, rating_sum, rating_count}}."
    )
    created_at: datetime
    updated_at: datetime

    feedback = to_many("FeedbackEvent", "The feedback it learned from (LEARNED_FROM).")
