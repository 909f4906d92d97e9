"""Workspace read results: a diff of two manifests, by hashes."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.read.nodes import load_written_at
from app.api.types.workspaces import WorkspaceSnapshot
from app.domain.workspaces import PathChange
from app.domain.workspaces import WorkspaceDiff as FoundDiff


@strawberry.type(description="A path whose SHA-256 differs between two manifests.")
class WorkspacePathChange:
    path: str
    before: str | None = strawberry.field(description="Its SHA-256 before (null: added).")
    after: str | None = strawberry.field(description="Its SHA-256 after (null: removed).")

    @classmethod
    def of(cls, change: PathChange) -> WorkspacePathChange:
        return cls(path=change.path, before=change.before, after=change.after)


@strawberry.type(
    description="What changed between two workspace manifests, found by their hashes: equal "
    "manifest hashes are identical without reading them; otherwise the paths whose SHA-256 "
    "differ. Each list is in path order, cut at `first` (the counts are whole: truncated)."
)
class WorkspaceDiff:
    from_snapshot: WorkspaceSnapshot
    to_snapshot: WorkspaceSnapshot | None = strawberry.field(
        description="Null: compared with the workspace's files now."
    )
    from_manifest_sha256: str
    to_manifest_sha256: str
    identical: bool
    added_count: int
    removed_count: int
    changed_count: int
    added: list[WorkspacePathChange]
    removed: list[WorkspacePathChange]
    changed: list[WorkspacePathChange]
    truncated: bool

    @classmethod
    async def of(cls, info: Info, found: FoundDiff) -> WorkspaceDiff:
        diff, after = found.changes, found.to_snapshot
        return cls(
            from_snapshot=await load_written_at(
                info, WorkspaceSnapshot, found.from_snapshot, "fromSnapshot"
            ),
            to_snapshot=await load_written_at(info, WorkspaceSnapshot, after, "toSnapshot")
            if after
            else None,
            from_manifest_sha256=found.from_snapshot["manifest_sha256"],
            to_manifest_sha256=found.to_manifest_sha256,
            identical=diff.identical,
            added_count=diff.added_count,
            removed_count=diff.removed_count,
            changed_count=diff.changed_count,
            added=[WorkspacePathChange.of(c) for c in diff.added],
            removed=[WorkspacePathChange.of(c) for c in diff.removed],
            changed=[WorkspacePathChange.of(c) for c in diff.changed],
            truncated=diff.truncated,
        )
