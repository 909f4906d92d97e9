"""Workspace memory by key (by id and the list are root fields derived from the model)."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.read.nodes import load_written
from app.api.resolve import run
from app.api.types.workspace_memory import WorkspaceMemory
from app.domain import workspace_memory


@strawberry.type
class WorkspaceMemoryQueries:
    @strawberry.field(
        description="The client's value under `key` (NOT_FOUND when the client has none)."
    )
    async def workspace_memory_by_key(self, info: Info, key: str) -> WorkspaceMemory:
        found = await run(info, workspace_memory.get_workspace_memory, key=key)
        return await load_written(info, WorkspaceMemory, found)
