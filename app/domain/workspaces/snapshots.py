"""Snapshots of a workspace and their diff (manifest.py says why by hashes). A snapshot reads
the live files under the workspace's write lock, so it is one moment of the workspace: no write
lands half inside it. Its manifest is stored before the snapshot node, in one transaction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.artifacts.staged import staged_uploads
from app.artifacts.store import ArtifactStore
from app.domain.kernel.ids import check_id, new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.workspace_paths import check_prefix
from app.domain.workspaces import manifest as m
from app.domain.workspaces import rules
from app.domain.workspaces.blobs import store_manifest
from app.domain.workspaces.repository import locked_workspace, writable_workspace
from app.domain.workspaces.snapshot_reads import check_first, read_manifest, snapshots_by_id
from app.graph.change_feed import note_change
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import ChangeAction

LIVE_FILES = """
MATCH (f:WorkspaceFile {client_id: $client_id, workspace_id: $workspace_id})
WHERE NOT f.is_deleted
RETURN collect([f.path, f.sha256]) AS files, coalesce(sum(f.size), 0) AS bytes
"""
CREATE_SNAPSHOT = """
MATCH (w:Workspace {id: $workspace_id, client_id: $client_id})
CREATE (w)-[:HAS_SNAPSHOT]->(s:WorkspaceSnapshot)
SET s = $snapshot
RETURN s {.*} AS snapshot
"""


@dataclass(frozen=True)
class WorkspaceDiff:
    from_snapshot: dict[str, Any]
    to_snapshot: dict[str, Any] | None  # None: the workspace's files now
    to_manifest_sha256: str
    changes: m.ManifestDiff


async def snapshot_workspace(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    workspace_id: str,
    label: str | None = None,
) -> dict[str, Any]:
    """An immutable manifest of the workspace's live files now."""
    checked_label = rules.check_label(label)
    workspace = await writable_workspace(graph, principal, workspace_id)

    async def work(tx: Tx) -> dict[str, Any]:
        await locked_workspace(tx, principal, workspace["id"])
        scope = {"client_id": principal.client_id, "workspace_id": workspace["id"]}
        row = (await tx.run(LIVE_FILES, scope))[0]
        manifest = m.manifest_of(row["files"])
        async with staged_uploads(artifacts, principal, shared=True) as uploads:
            stored = await store_manifest(uploads, manifest.data)
        now = datetime.now(UTC)
        snapshot = {
            "id": new_id(),
            "client_id": principal.client_id,
            "workspace_id": workspace["id"],
            "label": checked_label,
            "manifest_sha256": stored.sha256,
            "manifest_uri": stored.uri,
            "file_count": len(manifest.files),
            "total_bytes": int(row["bytes"]),
            "author": principal.actor,
            "created_at": now,
            "updated_at": now,
        }
        rows = await tx.run(CREATE_SNAPSHOT, scope | {"snapshot": snapshot})
        note_change(
            principal.client_id,
            "WorkspaceSnapshot",
            snapshot["id"],
            ChangeAction.CREATED,
            parent_id=workspace["id"],
        )
        return dict(plain(rows[0]["snapshot"]))

    return await graph.in_transaction(work)


async def diff_snapshots(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    from_id: str,
    to_id: str | None = None,
    prefix: str | None = None,
    first: int = 1_000,
) -> WorkspaceDiff:
    """What changed from snapshot `from_id` to snapshot `to_id` (of any of the caller's
    workspaces), or to the files of `from_id`'s workspace now when `to_id` is None."""
    under = check_prefix(prefix)
    check_first(first)
    ids = [check_id(from_id, field="from")] + ([check_id(to_id, field="to")] if to_id else [])
    found = await snapshots_by_id(graph, principal, ids)
    before = found[ids[0]]
    after = found[ids[-1]] if to_id else None
    if after is not None:
        to_sha = after["manifest_sha256"]
    else:
        live = await _live_manifest(graph, principal, before["workspace_id"])
        to_sha = live.sha256
    changes = m.same(before["manifest_sha256"], to_sha)
    if changes is None:
        old = await read_manifest(artifacts, principal, before)
        new = live.files if after is None else await read_manifest(artifacts, principal, after)
        changes = m.diff(old, new, prefix=under, first=first)
    return WorkspaceDiff(before, after, to_sha, changes)


async def _live_manifest(
    graph: GraphExecutor, principal: Principal, workspace_id: str
) -> m.Manifest:
    scope = {"client_id": principal.client_id, "workspace_id": workspace_id}
    return m.manifest_of((await graph.read(LIVE_FILES, scope))[0]["files"])
