"""Writing and deleting workspace files. Each write or delete of a path is a new immutable
version (WorkspaceFileVersion; a delete is a version with isDeleted: true and no content), the
file node showing the newest; numbered, and the workspace's counters kept, under the
workspace's write lock, in one transaction. The bytes are stored before it (blobs.py).

Writing what the path holds already (same bytes and media type) saves nothing, and deleting a
deleted path changes nothing: a retried call is answered with the file as it is."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.artifacts.staged import staged_uploads
from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import NotFound
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.workspace_paths import check_path
from app.domain.workspaces import rules
from app.domain.workspaces.blobs import Blob, store_blob
from app.domain.workspaces.repository import locked_workspace, writable_workspace
from app.graph.change_feed import note_change, unrecorded
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import ChangeAction

# A path's write as its file's change, by the write's live_delta (SAVE_VERSION).
FILE_ACTIONS = {1: ChangeAction.CREATED, 0: ChangeAction.UPDATED, -1: ChangeAction.DELETED}
FILE_AT = """
MATCH (f:WorkspaceFile {client_id: $client_id, workspace_id: $workspace_id, path: $path})
RETURN f {.*} AS file
"""
NEW_FILE = """
MATCH (w:Workspace {id: $workspace_id, client_id: $client_id})
CREATE (w)-[:HAS_FILE]->(f:WorkspaceFile)
SET f = $file
"""
# `live_delta`: +1 when a path comes back to life, -1 when it is deleted, else 0.
SAVE_VERSION = """
MATCH (w:Workspace {id: $workspace_id, client_id: $client_id})-[:HAS_FILE]->(f:WorkspaceFile)
WHERE f.id = $version.file_id
SET f += $current, f.updated_at = $now,
    w.file_count = w.file_count + $live_delta, w.total_bytes = w.total_bytes + $bytes_delta,
    w.updated_at = $now
CREATE (f)-[:HAS_VERSION]->(v:WorkspaceFileVersion)
SET v = $version
RETURN f {.*} AS file
"""


async def write_file(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    fields: dict[str, Any],
) -> dict[str, Any]:
    """The file at `path` of the workspace, with `text` or `content_base64` as its newest
    version (the path is created on its first write, revived after a delete)."""
    path = check_path(fields.get("path"))
    text = fields.get("text")
    data = rules.content_of(text, fields.get("content_base64"))
    media = rules.media_type_of(fields.get("media_type"), path, text=text is not None)
    workspace = await writable_workspace(graph, principal, str(fields.get("workspace_id")))
    async with staged_uploads(artifacts, principal, shared=True) as uploads:
        blob = await store_blob(graph, uploads, principal, data, media=media)

        async def work(tx: Tx) -> dict[str, Any]:
            await locked_workspace(tx, principal, workspace["id"])
            found = await _file_at(tx, principal, workspace["id"], path)
            if found is not None and _holds(found, blob, media):
                unrecorded()  # only the workspace's lock was written
                return found
            file = found or await _new_file(tx, principal, workspace["id"], path)
            return await _save(tx, principal, file, _content(blob, media), size=blob.size)

        return await graph.in_transaction(work)


async def delete_file(
    graph: GraphExecutor, *, principal: Principal, workspace_id: str, path: str
) -> dict[str, Any]:
    """The file at `path`, deleted: its versions stay, and so do the objects they (and
    snapshots) point at. NOT_FOUND when the path was never written."""
    checked = check_path(path)
    workspace = await writable_workspace(graph, principal, workspace_id)

    async def work(tx: Tx) -> dict[str, Any]:
        await locked_workspace(tx, principal, workspace["id"])
        found = await _file_at(tx, principal, workspace["id"], checked)
        if found is None:
            raise NotFound(f"no file at {checked!r} in workspace {workspace['id']}", path=checked)
        if found["is_deleted"]:
            unrecorded()  # only the workspace's lock was written
            return found
        return await _save(tx, principal, found, _tombstone(), size=0)

    return await graph.in_transaction(work)


def _holds(found: dict[str, Any], blob: Blob, media: str) -> bool:
    """The path holds these bytes with this media type now."""
    return not found["is_deleted"] and (found["sha256"], found["media_type"]) == (
        blob.sha256,
        media,
    )


def _content(blob: Blob, media: str) -> dict[str, Any]:
    return {
        "is_deleted": False,
        "sha256": blob.sha256,
        "size": blob.size,
        "media_type": media,
        "uri": blob.uri,
        "deleted_at": None,
    }


def _tombstone() -> dict[str, Any]:
    none = dict.fromkeys(("sha256", "size", "media_type", "uri"))
    return {"is_deleted": True, "deleted_at": datetime.now(UTC)} | none


async def _file_at(
    tx: Tx, principal: Principal, workspace_id: str, path: str
) -> dict[str, Any] | None:
    scope = {"client_id": principal.client_id, "workspace_id": workspace_id, "path": path}
    rows = await tx.run(FILE_AT, scope)
    return dict(plain(rows[0]["file"])) if rows else None


async def _new_file(tx: Tx, principal: Principal, workspace_id: str, path: str) -> dict[str, Any]:
    """A path written for the first time: version 0, deleted until its first version."""
    now = datetime.now(UTC)
    file = {
        "id": new_id(),
        "client_id": principal.client_id,
        "workspace_id": workspace_id,
        "path": path,
        "version": 0,
        "is_deleted": True,
        "created_at": now,
        "updated_at": now,
    }
    scope = {"client_id": principal.client_id, "workspace_id": workspace_id}
    await tx.run(NEW_FILE, scope | {"file": file})
    return file


async def _save(
    tx: Tx, principal: Principal, file: dict[str, Any], state: dict[str, Any], *, size: int
) -> dict[str, Any]:
    """`state` as the file's next version; the workspace's counters moved by the change."""
    now = datetime.now(UTC)
    number = int(file["version"]) + 1
    was_live = not file["is_deleted"]
    version = {
        "id": new_id(),
        "client_id": principal.client_id,
        "file_id": file["id"],
        "workspace_id": file["workspace_id"],
        "path": file["path"],
        "version": number,
        "author": principal.actor,
        "created_at": now,
        "updated_at": now,
    } | {k: v for k, v in state.items() if k != "deleted_at"}
    params = {
        "client_id": principal.client_id,
        "workspace_id": file["workspace_id"],
        "current": state | {"version": number},
        "version": version,
        "live_delta": int(not state["is_deleted"]) - int(was_live),
        "bytes_delta": size - (int(file.get("size") or 0) if was_live else 0),
        "now": now,
    }
    rows = await tx.run(SAVE_VERSION, params)
    _note_saved(principal.client_id, file, version["id"], params["live_delta"])
    return dict(plain(rows[0]["file"]))


def _note_saved(client_id: str, file: dict[str, Any], version_id: str, live_delta: int) -> None:
    """A path's new version, the file and the workspace's counters. The file node stays when
    its path is deleted, but apps see the path go (and come back when written again), so the
    file is DELETED, CREATED again, or UPDATED as the path lives on."""
    workspace_id, file_id = file["workspace_id"], file["id"]
    action = FILE_ACTIONS[live_delta]
    note_change(client_id, "WorkspaceFile", file_id, action, parent_id=workspace_id)
    note_change(
        client_id, "WorkspaceFileVersion", version_id, ChangeAction.CREATED, parent_id=file_id
    )
    note_change(client_id, "Workspace", workspace_id, ChangeAction.UPDATED)
