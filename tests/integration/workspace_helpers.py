"""GraphQL documents and helpers for the workspace tests."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import uuid
from typing import Any

import httpx

from app.artifacts.s3_client import make_client
from app.cli.admin import create_key
from app.model.enums import Role
from app.settings import Settings
from tests.integration.conftest import Caller

FILE = "id workspaceId path version isDeleted sha256 size mediaType deletedAt"
CREATE = """mutation($input: CreateWorkspaceInput!, $key: String) {
  createWorkspace(input: $input, idempotencyKey: $key) {
    id name agentName description fileCount totalBytes agent { name } } }"""
WRITE = f"""mutation($input: WriteWorkspaceFileInput!) {{
  writeWorkspaceFile(input: $input) {{ {FILE} }} }}"""
DELETE = f"""mutation($ws: ID!, $path: String!) {{
  deleteWorkspaceFile(workspaceId: $ws, path: $path) {{ {FILE} }} }}"""
SNAPSHOT = """mutation($ws: ID!, $label: String) {
  snapshotWorkspace(workspaceId: $ws, label: $label) {
    id workspaceId label manifestSha256 fileCount totalBytes author
    manifest { path sha256 } } }"""
READ_BY_ID = f"""query($id: ID!) {{ workspaceFile(id: $id) {{ {FILE} text contentBase64
  versions(orderBy: CREATED_AT_ASC) {{ version isDeleted sha256 text author }} }} }}"""
READ_BY_PATH = f"""query($ws: ID!, $path: String!) {{
  workspaceFile(workspaceId: $ws, path: $path) {{ {FILE} text presignedUrl }} }}"""
LIST = f"""query($ws: ID!, $prefix: String, $deleted: Boolean! = false, $first: Int! = 100,
  $after: String) {{
  workspaceFiles(workspaceId: $ws, prefix: $prefix, includeDeleted: $deleted, first: $first,
    after: $after) {{
    totalCount pageInfo {{ hasNextPage endCursor }} nodes {{ {FILE} }} }} }}"""
WORKSPACE = """query($id: ID!) { workspace(id: $id) {
  id name fileCount totalBytes snapshots { id } files(first: 100) { path }
  cycles { id workspaceCues } } }"""
DIFF = """query($from: ID!, $to: ID, $prefix: String, $first: Int! = 1000) {
  workspaceDiff(from: $from, to: $to, prefix: $prefix, first: $first) {
    fromSnapshot { id workspace { name } } toSnapshot { id }
    fromManifestSha256 toManifestSha256 identical addedCount removedCount changedCount
    added { path before after } removed { path before after } changed { path before after }
    truncated } }"""
SNAPSHOT_FILE = """query($id: ID!, $path: String!) {
  workspaceSnapshotFile(snapshotId: $id, path: $path) { path version sha256 text } }"""


def sha(data: str | bytes) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def error_of(body: dict[str, Any]) -> dict[str, Any]:
    """The one error's extensions (code, field, ...) and message."""
    assert body.get("errors"), body
    error = body["errors"][0]
    return {"message": error["message"], **error.get("extensions", {})}


def create(caller: Caller, name: str, **more: Any) -> dict[str, Any]:
    return dict(caller.data(CREATE, {"input": {"name": name, **more}})["createWorkspace"])


def write(caller: Caller, workspace_id: str, path: str, **content: Any) -> dict[str, Any]:
    given = {"workspaceId": workspace_id, "path": path, **content}
    return dict(caller.data(WRITE, {"input": given})["writeWorkspaceFile"])


def snapshot(caller: Caller, workspace_id: str, label: str | None = None) -> dict[str, Any]:
    return dict(caller.data(SNAPSHOT, {"ws": workspace_id, "label": label})["snapshotWorkspace"])


def diff(caller: Caller, from_id: str, to_id: str | None = None, **more: Any) -> dict[str, Any]:
    return dict(caller.data(DIFF, {"from": from_id, "to": to_id, **more})["workspaceDiff"])


def agents_of_one_client(settings: Settings, api_url: str, *names: str) -> list[Caller]:
    """Agent keys of one new client, one per agent name."""
    client = f"test-{uuid.uuid4().hex[:12]}"
    callers = []
    for name in names:
        issued = asyncio.run(create_key(settings, client=client, role=Role.AGENT, agent_name=name))
        callers.append(
            Caller(
                http=httpx.Client(base_url=api_url, timeout=30),
                key=issued.secret,
                client_id=issued.principal.client_id,
            )
        )
    return callers


def stored_blobs(settings: Settings, client_id: str) -> list[str]:
    """The object keys of the client's workspace file bytes in object storage."""
    client = make_client(settings)
    prefix = f"client/{client_id}/workspaces/blobs/"
    found = client.list_objects(settings.s3_bucket, prefix=prefix, recursive=True)
    return sorted(str(item.object_name) for item in found)


def workspace_with_a_file(caller: Caller) -> str:
    """A new workspace of the caller's agent holding one file; its id."""
    workspace = create(caller, f"ws-{uuid.uuid4().hex[:8]}")
    write(caller, workspace["id"], "notes.md", text="notes")
    return str(workspace["id"])
