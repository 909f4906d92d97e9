"""Agent and episode mutations: thin resolvers over app/domain (agents, episodes)."""

from __future__ import annotations

import dataclasses
from typing import Any

import strawberry
from strawberry.scalars import JSON

from app.api.context import Info
from app.api.episodes.inputs import (
    CloseEpisodeInput,
    EnsureAgentInput,
    EpisodeLinkInput,
    StartEpisodeInput,
)
from app.api.idempotent import IdempotencyKey, create_once, idempotent
from app.api.read.nodes import load_written
from app.api.types.agents import Agent, AgentEpisode
from app.domain import agents, episodes
from app.graph.executor import GraphExecutor


@strawberry.type
class EpisodeMutations:
    @strawberry.mutation(description="The client's agent of that name, created if new.")
    async def ensure_agent(self, info: Info, input: EnsureAgentInput | None = None) -> Agent:
        given = input or EnsureAgentInput()
        record = await agents.ensure_agent(
            info.context.graph,
            principal=info.context.caller(),
            name=given.name,
            description=given.description,
        )
        return await load_written(info, "Agent", record)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Start a RUNNING episode of an agent (created on first use).")
    @idempotent
    async def start_episode(
        self, info: Info, input: StartEpisodeInput, idempotency_key: IdempotencyKey = None
    ) -> AgentEpisode:
        async def create(graph: GraphExecutor) -> dict[str, Any]:
            fields = dataclasses.asdict(input)  # anew on every run: it may be retried
            return await episodes.start_episode(
                graph,
                principal=info.context.caller(),
                agent_name=fields.pop("agent_name"),
                parent_episode_id=fields.pop("parent_episode_id"),
                fields=fields,
            )

        record = await create_once(info, create)
        return await load_written(info, "AgentEpisode", record)  # type: ignore[no-any-return]

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
        record = await episodes.link_records(
            info.context.graph,
            principal=info.context.caller(),
            episode_id=id,
            reads=[dataclasses.asdict(link) for link in reads or []],
            writes=[dataclasses.asdict(link) for link in writes or []],
        )
        return await load_written(info, "AgentEpisode", record)  # type: ignore[no-any-return]

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
        record = await create_once(
            info,
            lambda graph: episodes.append_tool_calls(
                graph,
                info.context.services.artifacts,
                principal=info.context.caller(),
                episode_id=id,
                entries=list(entries),
                max_bytes=settings.episode_log_max_bytes,
                max_chunks=settings.episode_log_max_chunks,
            ),
        )
        return await load_written(info, "AgentEpisode", record)  # type: ignore[no-any-return]

    @strawberry.mutation(
        description="Close a running episode: its log (inputs, reads, tool calls, writes, "
        "decisions, output) is stored as JSON lines with its SHA-256; then nothing changes."
    )
    async def close_episode(
        self, info: Info, id: strawberry.ID, input: CloseEpisodeInput
    ) -> AgentEpisode:
        record = await episodes.close_episode(
            info.context.graph,
            info.context.services.artifacts,
            principal=info.context.caller(),
            episode_id=id,
            fields=dataclasses.asdict(input),
        )
        return await load_written(info, "AgentEpisode", record)  # type: ignore[no-any-return]
