"""Workspace bytes in object storage, content-addressed per client: a file's bytes under
client/{client_id}/workspaces/blobs/{sha256}, a snapshot's manifest under
.../workspaces/manifests/{sha256}.json. The same bytes are stored once: a write whose bytes a
version of the client already points at uploads nothing. Objects are never removed here (a
deleted file's versions and older snapshots still point at them); a failed write's upload goes
to the reconciliation, which removes it only when no node points at it (app/artifacts)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from app.artifacts.staged import StagedUploads
from app.artifacts.store import ArtifactStore
from app.domain.constraints.content import ContentCorrupted
from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.principal import Principal
from app.graph.executor import GraphExecutor

MANIFEST_TYPE = "application/json"
MAX_URL_EXPIRY_S = 7 * 86_400  # the longest S3 allows a presigned URL
STORED_BLOB = """
MATCH (v:WorkspaceFileVersion {client_id: $client_id, sha256: $sha256})
WHERE v.uri IS NOT NULL
RETURN v.uri AS uri LIMIT 1
"""


@dataclass(frozen=True)
class Blob:
    sha256: str
    size: int
    uri: str


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


async def store_blob(
    graph: GraphExecutor, uploads: StagedUploads, principal: Principal, data: bytes, *, media: str
) -> Blob:
    """The client's object of these bytes: the one a version already points at, else uploaded
    now (inside the caller's staged write, before the node that points at it)."""
    sha256 = digest(data)
    rows = await graph.read(STORED_BLOB, {"client_id": principal.client_id, "sha256": sha256})
    if rows:
        return Blob(sha256, len(data), str(rows[0]["uri"]))
    stored = await uploads.put(("workspaces", "blobs", sha256), data, content_type=media)
    return Blob(sha256, len(data), stored.uri)


async def store_manifest(uploads: StagedUploads, data: bytes) -> Blob:
    """A manifest under its own hash: equal manifests (of any workspace) share one object."""
    sha256 = digest(data)
    parts = ("workspaces", "manifests", f"{sha256}.json")
    stored = await uploads.put(parts, data, content_type=MANIFEST_TYPE)
    return Blob(sha256, len(data), stored.uri)


async def read_checked(
    artifacts: ArtifactStore, principal: Principal, uri: str, sha256: str, *, what: str
) -> bytes:
    """The object's bytes, refused with CONTENT_CORRUPTED when they no longer hash to what the
    node recorded."""
    data = await artifacts.get(principal, uri)
    if digest(data) != sha256:
        raise ContentCorrupted(
            f"the stored bytes of {what} do not match their SHA-256 {sha256}; restore the "
            "object from a backup",
            sha256=sha256,
        )
    return data


async def file_bytes(
    artifacts: ArtifactStore, principal: Principal, row: dict[str, Any]
) -> bytes | None:
    """A file's or version's bytes; None for a deletion."""
    if row.get("uri") is None:
        return None
    what = f"workspace file {row.get('path')!r} (version {row.get('version')})"
    return await read_checked(artifacts, principal, row["uri"], row["sha256"], what=what)


async def file_url(
    artifacts: ArtifactStore, principal: Principal, row: dict[str, Any], expires_s: int
) -> str | None:
    """A presigned GET URL of a file's or version's object; None for a deletion."""
    if not 1 <= expires_s <= MAX_URL_EXPIRY_S:
        raise ValidationFailed(
            f"expiresInSeconds must be 1-{MAX_URL_EXPIRY_S}", field="expires_in_seconds"
        )
    if row.get("uri") is None:
        return None
    return await artifacts.presigned_url(principal, row["uri"], expires_s=expires_s)
