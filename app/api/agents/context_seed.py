"""getContext's seed 002 shape over GraphQL: conversation history as messages, the workspace
context (brand voice, ICPs, preferences, the BrandKit) and relevant content of any type."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
from strawberry.scalars import JSON

from app.api.search.outputs import SearchHit, search_hit
from app.api.types.constraints import ConstraintVersion
from app.api.types.workspace_memory import WorkspaceMemory


@strawberry.type(description="One message of the conversation history.")
class ContextMessage:
    record_id: strawberry.ID = strawberry.field(
        description="The session entry (MemoryRecord) or thread event (ConversationEvent)."
    )
    role: str = strawberry.field(
        description="agent (the session's agent, or an outbound event) or user (anyone else)."
    )
    speaker: str | None = strawberry.field(description="Who said it (session entries).")
    text: str | None = strawberry.field(
        description="Its text (a thread event's long text stays in storage: null here)."
    )
    content: JSON | None = strawberry.field(description="Its content or metadata.")
    at: datetime


@strawberry.type(description="The client's shared context packed for the task (seed 002).")
class WorkspaceContext:
    brand_voice: WorkspaceMemory | None = strawberry.field(
        description="The brand voice workspace memory of highest priority."
    )
    icps: list[WorkspaceMemory] = strawberry.field(description="Highest priority first.")
    preferences: list[WorkspaceMemory] = strawberry.field(description="Highest priority first.")
    brand_kit: ConstraintVersion | None = strawberry.field(
        description="The current version of the client's BrandKit document, if any (outside "
        "the token budget: select content to read it)."
    )


def messages(found: list[dict[str, Any]]) -> list[ContextMessage]:
    return [
        ContextMessage(
            record_id=strawberry.ID(m["record_id"]),
            role=m["role"],
            speaker=m["speaker"],
            text=m["text"],
            content=m["content"],
            at=m["at"],
        )
        for m in found
    ]


def workspace(found: dict[str, Any]) -> WorkspaceContext:
    voice, kit = found["brand_voice"], found["brand_kit"]
    return WorkspaceContext(
        brand_voice=None if voice is None else WorkspaceMemory.from_row(voice),
        icps=[WorkspaceMemory.from_row(w) for w in found["icps"]],
        preferences=[WorkspaceMemory.from_row(w) for w in found["preferences"]],
        brand_kit=None if kit is None else ConstraintVersion.from_row(kit),
    )


def content(hits: list[Any]) -> list[SearchHit]:
    return [search_hit(hit) for hit in hits]
