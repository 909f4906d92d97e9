"""Memory records, their versions and artifacts, and the access log (seeds 001-004); fields held
to app/model by tests."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from app.api.context import Info
from app.api.types.base import NodeType, node_type, to_many, to_one
from app.model.enums import AccessOutcome, MemoryKind, ProcedureType


@node_type("MemoryRecord")
@strawberry.type(
    description="One memory of a client, in a namespace (subject / agent / session / path); "
    "(namespace, key) identifies an upsertable record. Expired records are never returned."
)
class MemoryRecord(NodeType):
    id: strawberry.ID
    subject: str | None
    agent: str | None
    session_id: str | None
    path: list[str] | None
    namespace: str = strawberry.field(
        description="Canonical join of the parts, e.g. subject:alice/agent:brad/notes."
    )
    key: str | None
    kind: MemoryKind
    text: str | None
    content: JSON | None = strawberry.field(
        description="Structured content; read from object storage when it is stored there."
    )
    content_uri: str | None = strawberry.field(
        description="Where large content lives in object storage (null when inline)."
    )
    content_sha256: str | None
    content_size: int | None = strawberry.field(description="Bytes of the content's JSON.")
    tags: list[str] | None
    priority: int
    source_agent: str | None
    expires_at: datetime | None
    active: bool = strawberry.field(description="False once forgotten (soft-deleted).")
    deleted_at: datetime | None
    version: int
    timeline: str | None
    procedure_type: ProcedureType | None
    created_at: datetime
    updated_at: datetime

    versions = to_many("MemoryVersion", "Its superseded states (HAS_VERSION).")
    summarizes = to_many("MemoryRecord", "Records this summary covers (SUMMARIZES).")
    artifacts = to_many("MemoryArtifact", "Verbatim attachments (HAS_ARTIFACT).")
    session = to_one("MemorySession", "The working-memory session it is an entry of (HAS_ENTRY).")


@node_type("MemoryVersion")
@strawberry.type(description="A superseded state of a memory record.")
class MemoryVersion(NodeType):
    id: strawberry.ID
    record_id: strawberry.ID
    version: int
    kind: MemoryKind | None
    text: str | None
    content: JSON | None = strawberry.field(description="Inline content (else see contentUri).")
    content_uri: str | None
    content_sha256: str | None
    content_size: int | None
    tags: list[str] | None
    priority: int
    source_agent: str | None
    expires_at: datetime | None
    active: bool
    procedure_type: ProcedureType | None
    valid_from: datetime | None = strawberry.field(description="When this state was written.")
    created_at: datetime = strawberry.field(description="When it was superseded.")
    updated_at: datetime

    record = to_one("MemoryRecord", "The record it is a version of (HAS_VERSION, incoming).")


@node_type("MemoryArtifact")
@strawberry.type(description="A verbatim attachment (a transcript, a file) in object storage.")
class MemoryArtifact(NodeType):
    __needs__ = frozenset({"uri"})  # downloadUrl

    id: strawberry.ID
    owner_id: strawberry.ID = strawberry.field(description="The record or session it belongs to.")
    kind: str
    uri: str
    sha256: str
    size: int
    content_type: str
    created_at: datetime
    updated_at: datetime

    @strawberry.field(description="A presigned download URL, valid for 15 minutes.")
    async def download_url(self, info: Info) -> str:
        artifacts = info.context.services.artifacts
        return await artifacts.presigned_url(info.context.caller(), self.uri)


@node_type("AccessLogEntry")
@strawberry.type(description="One read or write of memory records (seed 004 access log).")
class AccessLogEntry(NodeType):
    id: strawberry.ID
    operation: str = strawberry.field(
        description="create, update, revive, read, list, history, delete, purge, search, "
        "attach, expire, ..."
    )
    principal: str = strawberry.field(description="The agent name of the key, else its id.")
    key_id: str | None
    role: str | None
    target_type: str | None
    target_id: str | None
    outcome: AccessOutcome
    detail: str | None
    created_at: datetime = strawberry.field(description="When the access happened.")
    updated_at: datetime
