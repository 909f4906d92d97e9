"""getContext (seed 002): what an agent should know for a task, within a token budget."""

from __future__ import annotations

from typing import Any

import strawberry

from app.api.agents import context_seed as seed
from app.api.agents import outputs as o
from app.api.context import Info
from app.api.inputs import input_arguments
from app.api.outputs import from_fields
from app.api.resolve import run
from app.api.search.outputs import SearchHit
from app.api.types.memory import MemoryRecord
from app.domain import agents


@strawberry.input(
    description="An agent (the API key's agent by default) and a task; sessionId adds that "
    "session's recent entries, subject narrows to what is about that subject (or no one), "
    "text is what to search for (the task type by default)."
)
class ContextInput:
    task_type: str
    agent_name: str | None = None
    session_id: str | None = None
    subject: str | None = None
    text: str | None = None
    token_budget: int = strawberry.field(
        default=2000, description="Tokens (estimated as characters / 4) the context may use."
    )
    limit: int = strawberry.field(default=10, description="Candidates per section, 1-50.")
    thread_id: strawberry.ID | None = strawberry.field(
        default=None, description="Add this conversation thread's last events to the history."
    )
    include_semantic: bool = strawberry.field(
        default=True, description="False: no search (no relevant memories or content)."
    )


@strawberry.type(description="One memory record packed into a context.")
class ContextEntry:
    record: MemoryRecord = strawberry.field(
        description="The record's own fields (its relationship fields are not loaded here)."
    )
    tokens: int = strawberry.field(description="Its estimated tokens (text and content).")
    score: float | None = strawberry.field(description="Search score (relevant memories).")
    why: list[str]


@strawberry.type(
    description="The context of an agent for a task: patterns, then session entries, workspace "
    "context and relevant memories as far as the token budget allows."
)
class AgentContext:
    agent_name: str
    task_type: str
    session_id: str | None
    subject: str | None
    patterns: o.AgentPatterns
    patterns_included: bool = strawberry.field(
        description="False when the budget could not hold even the patterns."
    )
    session_entries: list[ContextEntry] = strawberry.field(description="Newest first.")
    workspace_context: list[ContextEntry] = strawberry.field(
        description="Semantic and procedural records, highest priority first."
    )
    relevant_memories: list[ContextEntry] = strawberry.field(description="Best match first.")
    conversation_history: list[seed.ContextMessage] = strawberry.field(
        description="Seed 002's conversation_history: the session entries and thread events "
        "packed, oldest first."
    )
    workspace: seed.WorkspaceContext = strawberry.field(
        description="Seed 002's workspace_context: the client's brand voice, ICPs and "
        "preferences (workspace memories packed after the session and thread), and BrandKit."
    )
    relevant_content: list[SearchHit] = strawberry.field(
        description="Seed 002's relevant_content: records of any type but memory and "
        "workspace memories that search finds for the task, packed last, best first."
    )
    token_budget: int
    tokens_used: int
    omitted: int = strawberry.field(description="Candidates left out for the budget.")
    used_ids: list[strawberry.ID] = strawberry.field(
        description="Every record in this context, in packing order."
    )


def _entries(entries: list[dict[str, Any]]) -> list[ContextEntry]:
    return [
        ContextEntry(
            record=MemoryRecord.from_row(e["record"]),
            tokens=e["tokens"],
            score=e["score"],
            why=e["why"],
        )
        for e in entries
    ]


@strawberry.type
class ContextQueries:
    @strawberry.field(
        description="What an agent should know for a task (seed 002 get_context): its patterns, "
        "recent session entries, workspace context and semantically relevant memories, within "
        "a token budget, with the ids of every record used."
    )
    async def get_context(self, info: Info, input: ContextInput) -> AgentContext:
        found = await run(info, agents.get_context, **input_arguments(input, "agent_name"))
        return from_fields(
            AgentContext,
            found,
            patterns=o.agent_patterns(found["patterns"]),
            session_entries=_entries(found["session_entries"]),
            workspace_context=_entries(found["workspace_context"]),
            relevant_memories=_entries(found["relevant_memories"]),
            conversation_history=seed.messages(found["conversation_history"]),
            workspace=seed.workspace(found["workspace"]),
            relevant_content=seed.content(found["relevant_content"]),
            used_ids=[strawberry.ID(i) for i in found["used_ids"]],
        )
