"""Workspace reads beyond the root fields: files by prefix, one file by id or path, a path as
a snapshot holds it, and the diff of two snapshots."""

from __future__ import annotations

from typing import Annotated

import strawberry

from app.api.context import Info
from app.api.read.records import load_record, load_records
from app.api.read.selection import connection_nodes, selected
from app.api.resolve import run
from app.api.types.connection import Connection, page_connection
from app.api.types.workspaces import WorkspaceFile, WorkspaceFileVersion
from app.api.workspaces.outputs import WorkspaceDiff
from app.domain import workspaces


@strawberry.type
class WorkspaceQueries:
    @strawberry.field(
        description="The workspace's files whose path starts with `prefix` (all by default), "
        "in path order, cursor-paginated; deleted ones only with includeDeleted."
    )
    async def workspace_files(
        self,
        info: Info,
        workspace_id: strawberry.ID,
        prefix: str | None = None,
        include_deleted: bool = False,
        first: int = 100,
        after: str | None = None,
    ) -> Connection[WorkspaceFile]:
        page = await run(
            info,
            workspaces.list_files,
            workspace_id=workspace_id,
            prefix=prefix,
            include_deleted=include_deleted,
            first=first,
            after=after,
        )
        fields = connection_nodes(selected(info))
        nodes = await load_records(info, WorkspaceFile, page.items, fields)
        return page_connection(page, nodes)

    @strawberry.field(
        description="One file by its id, or by its workspaceId and path (a deleted one too: "
        "isDeleted: true); NOT_FOUND otherwise."
    )
    async def workspace_file(
        self,
        info: Info,
        id: strawberry.ID | None = None,
        workspace_id: strawberry.ID | None = None,
        path: str | None = None,
    ) -> WorkspaceFile:
        found = await run(
            info, workspaces.read_file, file_id=id, workspace_id=workspace_id, path=path
        )
        return await load_record(info, WorkspaceFile, found, selected(info))

    @strawberry.field(
        description="The version of a path that a snapshot holds: its content resolves after "
        "the file changed or was deleted."
    )
    async def workspace_snapshot_file(
        self, info: Info, snapshot_id: strawberry.ID, path: str
    ) -> WorkspaceFileVersion:
        found = await run(info, workspaces.snapshot_file, snapshot_id=snapshot_id, path=path)
        return await load_record(info, WorkspaceFileVersion, found, selected(info))

    @strawberry.field(
        description="What changed from snapshot `from` to snapshot `to` (of any of the "
        "caller's workspaces), or to `from`'s workspace now when `to` is left out: paths "
        "added, removed and changed with their SHA-256, by hashes alone."
    )
    async def workspace_diff(
        self,
        info: Info,
        from_: Annotated[strawberry.ID, strawberry.argument(name="from")],
        to: strawberry.ID | None = None,
        prefix: str | None = None,
        first: int = 1_000,
    ) -> WorkspaceDiff:
        found = await run(
            info,
            workspaces.diff_snapshots,
            from_id=from_,
            to_id=to,
            prefix=prefix,
            first=first,
        )
        return await WorkspaceDiff.of(info, found)
