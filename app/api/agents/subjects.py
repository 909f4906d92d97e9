"""Subjects (user profiles) and relationship context: thin resolvers over
app/domain/agents/subjects."""

from __future__ import annotations

import dataclasses

import strawberry

from app.api.agents import outputs as o
from app.api.agents.inputs import RelationshipInput, SubjectInput, TouchInput
from app.api.context import Info
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.inputs import input_arguments
from app.api.read.nodes import load_written
from app.api.resolve import run, write
from app.api.types.agent_memory import MemorySubject
from app.domain import agents


@strawberry.type
class SubjectMutations:
    @strawberry.mutation(
        description="The client's subject (user profile) with that externalRef, created if new "
        "(active); a given displayName, profile, preferences or active flag replaces the stored "
        "one."
    )
    async def upsert_subject(self, info: Info, input: SubjectInput) -> MemorySubject:
        fields = dataclasses.asdict(input)
        return await write(info, agents.upsert_subject, MemorySubject, fields=fields)

    @strawberry.mutation(
        description="Create or update the relationship context between a subject (which must "
        "exist) and an agent (created on first use)."
    )
    async def set_relationship(self, info: Info, input: RelationshipInput) -> o.RelationshipContext:
        arguments = input_arguments(input, "subject", "agent_name")
        return o.relationship_context(await run(info, agents.set_relationship, **arguments))

    @strawberry.mutation(
        description="Record a contact: add its sessions, interactions and minutes to the "
        "relationship's counters and move lastContact forward, atomically."
    )
    @idempotent
    async def touch_relationship(
        self, info: Info, input: TouchInput, idempotency_key: IdempotencyKey = None
    ) -> o.RelationshipContext:
        arguments = input_arguments(input, "subject", "agent_name", "at")
        return o.relationship_context(await run(info, agents.touch_relationship, **arguments))


@strawberry.type
class SubjectQueries:
    @strawberry.field(
        description="The relationship context between a subject (by externalRef) and an agent "
        "(the API key's agent by default)."
    )
    async def relationship(
        self, info: Info, subject: str, agent_name: str | None = None
    ) -> o.RelationshipContext:
        record = await run(info, agents.get_relationship, subject=subject, agent_name=agent_name)
        return o.relationship_context(record)

    @strawberry.field(description="The client's subject by externalRef.")
    async def subject_by_ref(self, info: Info, external_ref: str) -> MemorySubject:
        record = await run(info, agents.get_subject, external_ref=external_ref)
        return await load_written(info, MemorySubject, record)
