"""Workspace memory mutations: thin resolvers over app/domain/workspace_memory."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.record_mutations import creates
from app.api.resolve import run
from app.api.types.workspace_memory import WorkspaceMemory
from app.api.workspace_memory.inputs import PutWorkspaceMemoryInput
from app.domain import workspace_memory


@strawberry.type
class WorkspaceMemoryMutations:
    put_workspace_memory = creates(
        workspace_memory.put_workspace_memory,
        WorkspaceMemory,
        PutWorkspaceMemoryInput,
        "Store a value of the client's shared context (brand voice, ICP, preference, custom) "
        "under its key; a key the client has is replaced (version + 1 when it changed).",
        keyed=False,
    )

    @strawberry.mutation(
        description="Remove the client's value under `key`; answers it as it was (NOT_FOUND "
        "when the client has none)."
    )
    async def delete_workspace_memory(self, info: Info, key: str) -> WorkspaceMemory:
        gone = await run(info, workspace_memory.delete_workspace_memory, key=key)
        return WorkspaceMemory.from_row(gone)
