"""Agents and their episodes (seed 000, 7); fields held to app/model by tests."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from app.api.types.base import NodeType, node_type, to_many, to_one
from app.model.enums import EpisodeStatus, EpisodeTrigger


@node_type("Agent")
@strawberry.type(description="An agent of the team; its episodes are what it did.")
class Agent(NodeType):
    id: strawberry.ID
    name: str
    description: str | None
    state: JSON | None = strawberry.field(
        description="Resumable agent state (saveAgentState), replaced as a whole."
    )
    state_version: int | None = strawberry.field(
        description="Bumped by each saveAgentState; pass it back as expectedVersion."
    )
    created_at: datetime
    updated_at: datetime

    episodes = to_many("AgentEpisode", "Episodes the agent ran (RAN).")
    cycles = to_many("AgentCycle", "Its think-act cycles (HAS_CYCLE).")


@node_type("AgentEpisode")
@strawberry.type(description="One bounded agent action, replayable (seed 000, 7).")
class AgentEpisode(NodeType):
    id: strawberry.ID
    agent_name: str
    task_class: str
    trigger: EpisodeTrigger
    input_refs: JSON | None
    retrieval_refs: JSON | None
    tool_call_log_uri: str | None
    tool_call_log_sha256: str | None
    output_summary: str | None
    status: EpisodeStatus
    cost_tokens_est: int | None
    latency_ms: int | None
    parent_episode_id: strawberry.ID | None
    closed_at: datetime | None
    tool_call_count: int | None = strawberry.field(description="Tool calls appended so far.")
    tool_call_appends: int | None = strawberry.field(description="appendToolCalls calls so far.")
    tool_call_bytes: int | None = strawberry.field(description="Bytes of tool-call lines so far.")
    created_at: datetime
    updated_at: datetime

    agent = to_one("Agent", "The agent that ran it (RAN).")
    parent = to_one("AgentEpisode", "The episode that spawned it (SPAWNED).")
    children = to_many("AgentEpisode", "Episodes it spawned (SPAWNED).")
    read_plan_nodes = to_many("PlanNode", "Plan nodes it read (READ).")
    read_assets = to_many("Asset", "Assets it read (READ).")
    read_threads = to_many("ConversationThread", "Threads it read (READ).")
    read_lessons = to_many("Lesson", "Lessons it read (READ).")
    wrote_plan_nodes = to_many("PlanNode", "Plan nodes it wrote (WROTE).")
    wrote_assets = to_many("Asset", "Assets it wrote (WROTE).")
    wrote_threads = to_many("ConversationThread", "Threads it wrote (WROTE).")
    wrote_engagement = to_many("EngagementEvent", "Engagement events it wrote (WROTE).")
    wrote_lessons = to_many("Lesson", "Lessons it wrote (WROTE).")
