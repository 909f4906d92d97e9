"""Agents and their episodes (seed 000, 7); fields from app/model."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from app.api.types.base import NodeType, node_type


@node_type("Agent", "An agent of the team; its episodes are what it did.")
class Agent(NodeType):
    state: JSON | None = strawberry.field(
        description="Resumable agent state (saveAgentState), replaced as a whole."
    )
    state_version: int | None = strawberry.field(
        description="Bumped by each saveAgentState; pass it back as expectedVersion."
    )


@node_type("AgentEpisode", "One bounded agent action, replayable (seed 000, 7).")
class AgentEpisode(NodeType):
    # Read by replayEpisode (app/api/episodes/queries.py).
    input_refs: JSON | None
    retrieval_refs: JSON | None
    tool_call_log_uri: str | None
    tool_call_log_sha256: str | None
    tool_call_count: int | None = strawberry.field(description="Tool calls appended so far.")
    tool_call_appends: int | None = strawberry.field(description="appendToolCalls calls so far.")
    tool_call_bytes: int | None = strawberry.field(description="Bytes of tool-call lines so far.")
