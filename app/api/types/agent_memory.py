"""Agent state and learning (seeds 001-004): subjects, agent cycles, feedback events and the
learned per-task counters; fields from app/model."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from app.api.types.base import NodeType, node_type


@node_type(
    "MemorySubject",
    "The user (or other party) memories are about: a profile, and relationship "
    "context with agents (see `relationship`).",
)
class MemorySubject(NodeType):
    external_ref: str = strawberry.field(description="The caller's own id of the subject.")


@node_type(
    "AgentCycle",
    "One think-act cycle of an agent (seed 001): the proposal (thoughts, tool call, "
    "plan) and, once completed, the result (output, error).",
)
class AgentCycle(NodeType):
    sequence: int = strawberry.field(description="1, 2, ... per agent, in recording order.")


@node_type("FeedbackEvent", "Raw feedback on one task of an agent, kept as history.")
class FeedbackEvent(NodeType): ...


@node_type(
    "AgentPerformance",
    "What an agent learned on one task type: counters updated atomically from "
    "feedback (see agentPatterns for the derived rates).",
)
class AgentPerformance(NodeType):
    patterns: JSON | None = strawberry.field(
        description="{pattern: {count, successes, rating_sum, rating_count}}."
    )
