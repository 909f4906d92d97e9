"""Agent and episode mutations: thin resolvers over app/domain (agents, episodes)."""

from __future__ import annotations

import dataclasses

import strawberry
from strawberry.scalars import JSON

from app.api.context import Info
from app.api.episodes.inputs import (
    CloseEpisodeInput,
    EnsureAgentInput,
    EpisodeLinkInput,
    StartEpisodeInput,
)
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.record_mutations import creates
from app.api.resolve import write
from app.api.types.agents import Agent, AgentEpisode
from app.domain import agents, episodes


@strawberry.type
class EpisodeMutations:
    @strawberry.mutation(description="The client's agent of that name, created if new.")
    async def ensure_agent(self, info: Info, input: EnsureAgentInput | None = None) -> Agent:
        given = input or EnsureAgentInput()
        return await write(
            info, agents.ensure_agent, Agent, name=given.name, description=given.description
        )

    start_episode = creates(
        episodes.start_episode,
        AgentEpisode,
        StartEpisodeInput,
        "Start a RUNNING episode of an agent (created on first use).",
        apart=("agent_name", "parent_episode_id"),
    )

    @strawberry.mutation(
        description="Link a running episode to records it READ (plan nodes, assets, threads, "
        "lessons) and WROTE (those and engagement events); idempotent per record and role."
    )
    async def link_episode_records(
        self,
        info: Info,
        id: strawberry.ID,
        reads: list[EpisodeLinkInput] | None = None,
        writes: list[EpisodeLinkInput] | None = None,
    ) -> AgentEpisode:
        return await write(
            info,
            episodes.link_records,
            AgentEpisode,
            episode_id=id,
            reads=[dataclasses.asdict(link) for link in reads or []],
            writes=[dataclasses.asdict(link) for link in writes or []],
        )

    @strawberry.mutation(description="Append tool calls (JSON objects) to a running episode's log.")
    @idempotent
    async def append_tool_calls(
        self,
        info: Info,
        id: strawberry.ID,
        entries: list[JSON],
        idempotency_key: IdempotencyKey = None,
    ) -> AgentEpisode:
        settings = info.context.services.settings
        return await write(
            info,
            episodes.append_tool_calls,
            AgentEpisode,
            episode_id=id,
            entries=list(entries),
            max_bytes=settings.episode_log_max_bytes,
            max_chunks=settings.episode_log_max_chunks,
        )

    @strawberry.mutation(
        description="Close a running episode: its log (inputs, reads, tool calls, writes, "
        "decisions, output) is stored as JSON lines with its SHA-256; then nothing changes."
    )
    async def close_episode(
        self, info: Info, id: strawberry.ID, input: CloseEpisodeInput
    ) -> AgentEpisode:
        fields = dataclasses.asdict(input)
        return await write(info, episodes.close_episode, AgentEpisode, episode_id=id, fields=fields)
