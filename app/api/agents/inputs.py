"""Inputs of the agent state and learning mutations and queries."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from app.model.enums import AgentCycleStatus


@strawberry.input(
    description="A cycle's action proposal (at least one of thoughts, toolCall, plan); "
    "agentName defaults to the API key's agent, created on first use; memoryIds are memory "
    "records of the caller that the cycle produced."
)
class RecordCycleInput:
    agent_name: str | None = None
    thoughts: str | None = None
    tool_call: JSON | None = strawberry.field(default=None, description="A JSON object.")
    plan: JSON | None = strawberry.field(default=None, description="A JSON object or array.")
    memory_ids: list[strawberry.ID] = strawberry.field(default_factory=list)
    workspace_id: strawberry.ID | None = strawberry.field(
        default=None, description="The workspace the cues are paths of (WORKS_IN)."
    )
    workspace_cues: list[str] = strawberry.field(
        default_factory=list,
        description="Paths of that workspace the proposal means to read or write (existing or "
        "not), at most 100.",
    )


@strawberry.input(
    description="A cycle's action result: status SUCCEEDED or FAILED, output (JSON object or "
    "array), error; memoryIds are more records the cycle produced."
)
class CompleteCycleInput:
    status: AgentCycleStatus
    output: JSON | None = None
    error: str | None = None
    memory_ids: list[strawberry.ID] = strawberry.field(default_factory=list)
    workspace_file_ids: list[strawberry.ID] = strawberry.field(
        default_factory=list,
        description="Live workspace files it produced: linked (PRODUCED) to the version each "
        "holds now.",
    )
    artifact_ids: list[strawberry.ID] = strawberry.field(
        default_factory=list, description="Memory artifacts it produced (PRODUCED)."
    )


@strawberry.input(
    description="Feedback on one task of an agent (the API key's agent by default): success, "
    "a rating from 0 to 5, the patterns (strategies) used, a comment."
)
class FeedbackInput:
    task_type: str
    success: bool
    agent_name: str | None = None
    rating: float | None = None
    patterns: list[str] = strawberry.field(default_factory=list)
    comment: str | None = None


@strawberry.input(
    description="A subject (user profile, seed 004) by the caller's own reference; a given "
    "displayName, profile or preferences (JSON objects) or active flag replaces the stored "
    "one (a new subject is active)."
)
class SubjectInput:
    external_ref: str
    display_name: str | None = None
    profile: JSON | None = None
    preferences: JSON | None = None
    active: bool | None = None


@strawberry.input(
    description="Relationship context between a subject and an agent (the API key's agent by "
    "default): type (e.g. friend, mentor), custom prompt, memory settings (JSON object). "
    "customPrompt and memorySettings left out keep their stored values."
)
class RelationshipInput:
    subject: str = strawberry.field(description="The subject's externalRef.")
    type: str
    agent_name: str | None = None
    custom_prompt: str | None = None
    memory_settings: JSON | None = None


@strawberry.input(
    description="One contact between a subject and an agent: what it adds to the counters, and "
    "when it happened (now by default; lastContact only moves forward)."
)
class TouchInput:
    subject: str = strawberry.field(description="The subject's externalRef.")
    agent_name: str | None = None
    sessions: int = 1
    interactions: int = 0
    minutes: float = 0.0
    at: datetime | None = None
