"""Reading snapshots: the snapshots by id (another client's answered as missing), a
manifest checked against its hash, its entries under a prefix, and the version of a path it
holds."""

from __future__ import annotations

from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import NotFound, ValidationFailed
from app.domain.kernel.ids import check_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import missing
from app.domain.kernel.workspace_paths import check_path, check_prefix
from app.domain.workspaces import manifest as m
from app.domain.workspaces.blobs import read_checked
from app.graph.executor import GraphExecutor
from app.graph.values import plain

SNAPSHOTS = """
UNWIND $ids AS id
MATCH (s:WorkspaceSnapshot {id: id, client_id: $client_id})
RETURN s {.*} AS snapshot
"""
# The newest version of the path with the snapshot's bytes written before the snapshot.
VERSION_OF = """
MATCH (v:WorkspaceFileVersion {client_id: $client_id, sha256: $sha256})
WHERE v.workspace_id = $workspace_id AND v.path = $path AND v.created_at <= $at
RETURN v {.*} AS version ORDER BY v.version DESC LIMIT 1
"""


async def snapshot_file(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    snapshot_id: str,
    path: str,
) -> dict[str, Any]:
    """The version of `path` a snapshot holds: its content still resolves after the file
    changed or was deleted."""
    checked = check_path(path)
    record_id = check_id(snapshot_id, field="snapshot_id")
    snapshot = (await snapshots_by_id(graph, principal, [record_id]))[record_id]
    sha256 = (await read_manifest(artifacts, principal, snapshot)).get(checked)
    params = {
        "client_id": principal.client_id,
        "workspace_id": snapshot["workspace_id"],
        "sha256": sha256,
        "path": checked,
        "at": snapshot["created_at"],
    }
    rows = await graph.read(VERSION_OF, params) if sha256 else []
    if not rows:
        raise NotFound(f"snapshot {record_id} holds no file at {checked!r}", path=checked)
    return dict(plain(rows[0]["version"]))


async def read_manifest(
    artifacts: ArtifactStore, principal: Principal, snapshot: dict[str, Any]
) -> dict[str, str]:
    """The snapshot's manifest (path -> sha256), checked against its hash."""
    what = f"the manifest of workspace snapshot {snapshot.get('id')}"
    sha256 = snapshot["manifest_sha256"]
    data = await read_checked(artifacts, principal, snapshot["manifest_uri"], sha256, what=what)
    return m.decode(data)


async def snapshot_manifest(
    artifacts: ArtifactStore,
    principal: Principal,
    snapshot: dict[str, Any],
    *,
    prefix: str | None = None,
    first: int = 1_000,
) -> list[tuple[str, str]]:
    """The first `first` (path, sha256) entries of a snapshot's manifest under `prefix`."""
    under = check_prefix(prefix)
    check_first(first)
    files = await read_manifest(artifacts, principal, snapshot)
    return sorted((p, h) for p, h in files.items() if p.startswith(under))[:first]


def check_first(first: int) -> None:
    if not 1 <= first <= m.MAX_CHANGES:
        raise ValidationFailed(f"first must be between 1 and {m.MAX_CHANGES}", field="first")


async def snapshots_by_id(
    graph: GraphExecutor, principal: Principal, ids: list[str]
) -> dict[str, dict[str, Any]]:
    rows = await graph.read(SNAPSHOTS, {"client_id": principal.client_id, "ids": ids})
    found = {row["snapshot"]["id"]: dict(plain(row["snapshot"])) for row in rows}
    for snapshot_id in ids:
        if snapshot_id not in found:
            raise missing("workspace snapshot", snapshot_id)
    return found
