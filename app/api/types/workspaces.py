"""Workspaces, their files, file versions and snapshots (seed 001); fields from app/model. A
file's or version's bytes are read from object storage by `text`, `contentBase64` and
`presignedUrl`; a snapshot's manifest by `manifest`."""

from __future__ import annotations

import base64
from typing import Any

import strawberry

from app.api.context import Info
from app.api.types.base import NodeType, node_type
from app.domain import workspaces

CONTENT_NEEDS = frozenset({"uri", "sha256", "path", "version"})


@strawberry.type(description="One path of a snapshot's manifest and the SHA-256 of its bytes.")
class WorkspaceManifestEntry:
    path: str
    sha256: str


async def _bytes(node: NodeType, info: Info) -> bytes | None:
    row: dict[str, Any] = node._row
    return await workspaces.file_bytes(info.context.services.artifacts, info.context.caller(), row)


async def _text(self: NodeType, info: Info) -> str | None:
    data = await _bytes(self, info)
    try:
        return None if data is None else data.decode()
    except UnicodeDecodeError:
        return None


async def _base64(self: NodeType, info: Info) -> str | None:
    data = await _bytes(self, info)
    return None if data is None else base64.b64encode(data).decode()


async def _presigned_url(self: NodeType, info: Info, expires_in_seconds: int = 900) -> str | None:
    artifacts, row = info.context.services.artifacts, self._row
    return await workspaces.file_url(artifacts, info.context.caller(), row, expires_in_seconds)


# The fields reading a file's or version's bytes (null for a deletion), each checked against
# its SHA-256 (CONTENT_CORRUPTED otherwise); a new field object per type.


def text_field() -> Any:
    return strawberry.field(
        resolver=_text, description="The content as UTF-8 text (null when it is not UTF-8)."
    )


def base64_field() -> Any:
    return strawberry.field(resolver=_base64, description="The content, base64.")


def url_field() -> Any:
    return strawberry.field(
        resolver=_presigned_url,
        description="A presigned GET URL of the content (1 s to 7 days; 15 minutes default).",
    )


@node_type(
    "Workspace",
    "An agent's sandbox of files (seed 001), its name unique per agent; fileCount and "
    "totalBytes count its live files.",
)
class Workspace(NodeType): ...


@node_type(
    "WorkspaceFile",
    "A path of a workspace as it is now (version, sha256, size, mediaType; null once "
    "deleted); its versions keep every earlier state.",
)
class WorkspaceFile(NodeType):
    __needs__ = CONTENT_NEEDS
    __hidden__ = frozenset({"uri"})

    text = text_field()
    content_base64 = base64_field()
    presigned_url = url_field()


@node_type(
    "WorkspaceFileVersion",
    "One immutable state of a workspace path: content written, or a deletion (isDeleted: true).",
)
class WorkspaceFileVersion(NodeType):
    __needs__ = CONTENT_NEEDS
    __hidden__ = frozenset({"uri"})

    text = text_field()
    content_base64 = base64_field()
    presigned_url = url_field()


@node_type(
    "WorkspaceSnapshot",
    "The live files of a workspace at one moment: an immutable manifest (path -> SHA-256) "
    "stored under its own SHA-256 (equal manifests, equal hashes: see workspaceDiff).",
)
class WorkspaceSnapshot(NodeType):
    __needs__ = frozenset({"manifest_uri", "manifest_sha256"})
    __hidden__ = frozenset({"manifest_uri"})

    @strawberry.field(description="The manifest's paths under `prefix`, in path order.")
    async def manifest(
        self, info: Info, prefix: str | None = None, first: int = 1_000
    ) -> list[WorkspaceManifestEntry]:
        context = info.context
        files = await workspaces.snapshot_manifest(
            context.services.artifacts, context.caller(), self._row, prefix=prefix, first=first
        )
        return [WorkspaceManifestEntry(path=path, sha256=sha256) for path, sha256 in files]
