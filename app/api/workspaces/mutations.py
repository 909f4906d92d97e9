"""Workspace mutations: thin resolvers over app/domain/workspaces."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.record_mutations import creates
from app.api.resolve import write
from app.api.types.workspaces import Workspace, WorkspaceFile, WorkspaceSnapshot
from app.api.workspaces.inputs import CreateWorkspaceInput, WriteWorkspaceFileInput
from app.domain import workspaces


@strawberry.type
class WorkspaceMutations:
    create_workspace = creates(
        workspaces.create_workspace,
        Workspace,
        CreateWorkspaceInput,
        "Create an empty workspace of an agent; CONFLICT when the agent has one of that name "
        "(its id in the error).",
    )
    write_workspace_file = creates(
        workspaces.write_file,
        WorkspaceFile,
        WriteWorkspaceFileInput,
        "Write one file: a new version of the path (created on its first write, back after a "
        "delete), its bytes stored once per client under their SHA-256 before the version. "
        "The bytes and media type the path holds already save nothing (a retried write).",
        keyed=False,
    )

    @strawberry.mutation(
        description="Delete the file at a path: a deletion version (isDeleted: true); earlier "
        "versions, and the snapshots holding them, keep their content. Deleting a deleted "
        "file changes nothing; a path never written is NOT_FOUND."
    )
    async def delete_workspace_file(
        self, info: Info, workspace_id: strawberry.ID, path: str
    ) -> WorkspaceFile:
        return await write(
            info, workspaces.delete_file, WorkspaceFile, workspace_id=workspace_id, path=path
        )

    @strawberry.mutation(
        description="Snapshot the workspace's live files as they are now (under its write "
        "lock): an immutable manifest of path -> SHA-256, stored under its own SHA-256."
    )
    @idempotent
    async def snapshot_workspace(
        self,
        info: Info,
        workspace_id: strawberry.ID,
        label: str | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> WorkspaceSnapshot:
        return await write(
            info,
            workspaces.snapshot_workspace,
            WorkspaceSnapshot,
            workspace_id=workspace_id,
            label=label,
        )
