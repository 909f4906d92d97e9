"""Subjects (user profiles) and relationship context: thin resolvers over
app/domain/agents/subjects."""

from __future__ import annotations

import dataclasses
from typing import Any

import strawberry

from app.api.agents import outputs as o
from app.api.agents.inputs import RelationshipInput, SubjectInput, TouchInput
from app.api.context import Info
from app.api.idempotent import IdempotencyKey, create_once, idempotent
from app.api.read.nodes import load_written
from app.api.types.agent_memory import MemorySubject
from app.domain import agents
from app.graph.executor import GraphExecutor


@strawberry.type
class SubjectMutations:
    @strawberry.mutation(
        description="The client's subject with that externalRef, created if new; a given "
        "displayName or profile replaces the stored one."
    )
    async def upsert_subject(self, info: Info, input: SubjectInput) -> MemorySubject:
        record = await agents.upsert_subject(
            info.context.graph, principal=info.context.caller(), fields=dataclasses.asdict(input)
        )
        return await load_written(info, "MemorySubject", record)  # type: ignore[no-any-return]

    @strawberry.mutation(
        description="Create or update the relationship context between a subject (which must "
        "exist) and an agent (created on first use)."
    )
    async def set_relationship(self, info: Info, input: RelationshipInput) -> o.RelationshipContext:
        fields = dataclasses.asdict(input)
        record = await agents.set_relationship(
            info.context.graph,
            principal=info.context.caller(),
            subject=fields.pop("subject"),
            agent_name=fields.pop("agent_name"),
            fields=fields,
        )
        return o.relationship_context(record)

    @strawberry.mutation(
        description="Record a contact: add its sessions, interactions and minutes to the "
        "relationship's counters and move lastContact forward, atomically."
    )
    @idempotent
    async def touch_relationship(
        self, info: Info, input: TouchInput, idempotency_key: IdempotencyKey = None
    ) -> o.RelationshipContext:
        async def create(graph: GraphExecutor) -> dict[str, Any]:
            fields = dataclasses.asdict(input)  # anew on every run: it may be retried
            return await agents.touch_relationship(
                graph,
                principal=info.context.caller(),
                subject=fields.pop("subject"),
                agent_name=fields.pop("agent_name"),
                at=fields.pop("at"),
                fields=fields,
            )

        record = await create_once(info, create)
        return o.relationship_context(record)


@strawberry.type
class SubjectQueries:
    @strawberry.field(
        description="The relationship context between a subject (by externalRef) and an agent "
        "(the API key's agent by default)."
    )
    async def relationship(
        self, info: Info, subject: str, agent_name: str | None = None
    ) -> o.RelationshipContext:
        record = await agents.get_relationship(
            info.context.graph,
            principal=info.context.caller(),
            subject=subject,
            agent_name=agent_name,
        )
        return o.relationship_context(record)

    @strawberry.field(description="The client's subject by externalRef.")
    async def subject_by_ref(self, info: Info, external_ref: str) -> MemorySubject:
        record = await agents.get_subject(
            info.context.graph, principal=info.context.caller(), external_ref=external_ref
        )
        return await load_written(info, "MemorySubject", record)  # type: ignore[no-any-return]
