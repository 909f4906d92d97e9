"""Inputs of the agent and episode mutations."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from app.model.enums import EpisodeStatus, EpisodeTrigger


@strawberry.input(description="An agent by name; the API key's agent when no name is given.")
class EnsureAgentInput:
    name: str | None = None
    description: str | None = None


@strawberry.input(
    description="A running episode; agentName defaults to the API key's agent, and a parent "
    "episode (running, of the same client) records the recursion (SPAWNED)."
)
class StartEpisodeInput:
    task_class: str
    trigger: EpisodeTrigger
    agent_name: str | None = None
    input_refs: JSON | None = None
    retrieval_refs: JSON | None = None
    parent_episode_id: strawberry.ID | None = None


@strawberry.input(description="A record the episode read or wrote, and in which role.")
class EpisodeLinkInput:
    id: strawberry.ID
    role: str = strawberry.field(description="Free text, e.g. input, retrieved, context, output.")


@strawberry.input(
    description="The final status (SUCCESS, FAILED, ABORTED or ESCALATED); latencyMs defaults "
    "to the time since the episode started; decisions are JSON objects kept in the log."
)
class CloseEpisodeInput:
    status: EpisodeStatus
    output_summary: str | None = None
    cost_tokens_est: int | None = None
    latency_ms: int | None = None
    decisions: list[JSON] = strawberry.field(default_factory=list)
