"""Agent state per session (seed 004); fields from app/model."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from app.api.types.base import NodeType, node_type


@node_type(
    "AgentSessionState",
    "An agent's state scoped to one session (saveAgentSessionState), beside its global state "
    "(Agent.state). Expired states are never returned; the sweeper purges them.",
)
class AgentSessionState(NodeType):
    __hidden__ = frozenset({"active"})  # always true: a cleared state is deleted

    session_id: strawberry.ID = strawberry.field(description="The MemorySession it belongs to.")
    state: JSON = strawberry.field(description="Replaced as a whole by each save.")
    version: int = strawberry.field(
        description="Bumped by each save; pass it back as expectedVersion."
    )
    expires_at: datetime | None = strawberry.field(description="Null: kept until cleared.")
