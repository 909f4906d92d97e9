"""Reading a workspace: its files by path prefix (in path order, cursor-paginated), one file by
id or by path. Another client's workspace or file is answered exactly like a missing one."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from app.domain.kernel.errors import NotFound, ValidationFailed
from app.domain.kernel.ids import check_id
from app.domain.kernel.pagination import Page, check_page_size
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import first_record, missing
from app.domain.kernel.workspace_paths import check_path, check_prefix
from app.graph.executor import GraphExecutor
from app.graph.values import plain

# Files of the workspace whose path starts with $prefix, live ones unless $deleted; the
# (client_id, workspace_id, path) constraint's index serves the path order.
LISTED = """
MATCH (f:WorkspaceFile {client_id: $client_id, workspace_id: $workspace_id})
WHERE f.path STARTS WITH $prefix AND ($deleted OR NOT f.is_deleted)"""
LIST_FILES = f"""
MATCH (w:Workspace {{id: $workspace_id, client_id: $client_id}})
CALL (w) {{ {LISTED} RETURN count(f) AS total }}
CALL (w) {{
  {LISTED} AND ($after IS NULL OR f.path > $after)
  WITH f ORDER BY f.path LIMIT $limit
  RETURN collect(f {{.*}}) AS files
}}
RETURN total, files
"""
FILE_BY_ID = """
MATCH (f:WorkspaceFile {id: $id, client_id: $client_id})
RETURN f {.*} AS file
"""
FILE_BY_PATH = """
MATCH (f:WorkspaceFile {client_id: $client_id, workspace_id: $workspace_id, path: $path})
RETURN f {.*} AS file
"""


async def list_files(
    graph: GraphExecutor,
    *,
    principal: Principal,
    workspace_id: str,
    prefix: str | None = None,
    include_deleted: bool = False,
    first: int = 100,
    after: str | None = None,
) -> Page[dict[str, Any]]:
    """One page of the workspace's files under `prefix`, in path order."""
    checked_id = check_id(workspace_id, field="workspace_id")
    params = {
        "client_id": principal.client_id,
        "workspace_id": checked_id,
        "prefix": check_prefix(prefix),
        "deleted": bool(include_deleted),
        "after": decode_cursor(after),
        "limit": check_page_size(first) + 1,
    }
    rows = await graph.read(LIST_FILES, params)
    if not rows:
        raise missing("workspace", checked_id)
    files = [dict(plain(f)) for f in rows[0]["files"]]
    page = files[:first]
    return Page(
        items=page,
        cursors=[encode_cursor(f["path"]) for f in page],
        total_count=int(rows[0]["total"]),
        has_next_page=len(files) > first,
    )


async def read_file(
    graph: GraphExecutor,
    *,
    principal: Principal,
    file_id: str | None = None,
    workspace_id: str | None = None,
    path: str | None = None,
) -> dict[str, Any]:
    """A file by its id, or by its workspace and path (deleted ones too: isDeleted: true)."""
    scope: dict[str, Any] = {"client_id": principal.client_id}
    if file_id is not None and workspace_id is None and path is None:
        scope["id"] = check_id(file_id)
        rows = await graph.read(FILE_BY_ID, scope)
        return dict(first_record(rows, "file", what="workspace file", record_id=scope["id"]))
    if file_id is not None or workspace_id is None or path is None:
        raise ValidationFailed("give a file's id, or its workspaceId and path", field="id")
    scope["workspace_id"] = check_id(workspace_id, field="workspace_id")
    scope["path"] = check_path(path)
    rows = await graph.read(FILE_BY_PATH, scope)
    if not rows:
        raise NotFound(
            f"no file at {path!r} in workspace {scope['workspace_id']}",
            path=path,
            workspaceId=scope["workspace_id"],
        )
    return dict(plain(rows[0]["file"]))


def encode_cursor(path: str) -> str:
    return base64.urlsafe_b64encode(path.encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> str | None:
    """The path a page ended at; VALIDATION for anything this API did not hand out."""
    if cursor is None:
        return None
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        return base64.b64decode(padded, altchars=b"-_", validate=True).decode()
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise ValidationFailed("after: not a cursor returned by this API", field="after") from None
