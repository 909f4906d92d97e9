"""Working-memory sessions (seed 003); fields from app/model."""

from __future__ import annotations

from datetime import datetime

import strawberry

from app.api.types.base import NodeType, node_type


@node_type(
    "MemorySession",
    "A working-memory session of an agent (with a subject): entries on timelines, "
    "flushed at the end into one episodic summary. Flushed sessions are read-only; archived "
    "ones keep their entries' text and content in object storage (archiveSession). The "
    "`entries` relationship lists the live entries (forgotten and expired ones hidden); "
    "sessionEntries lists them in order, per timeline.",
)
class MemorySession(NodeType):
    ended_at: datetime | None = strawberry.field(description="When it was flushed.")
    entry_count: int = strawberry.field(description="Live (not deleted) entries.")
    summary_record_id: strawberry.ID | None = strawberry.field(
        description="The episodic summary written by the flush."
    )
    external_ref: str | None = strawberry.field(
        description="The caller's own handle (e.g. a call id): startSession with it again "
        "returns this session."
    )
    timelines: list[str] | None = strawberry.field(
        description="Timelines that have had entries, in order of first use (a deleted "
        "timeline is removed)."
    )
    last_entry_at: datetime | None = strawberry.field(
        description="createdAt of the newest entry (entries are ordered by createdAt)."
    )
    session_type: str = strawberry.field(
        description="Seed 004's session type, e.g. conversation (the default) or task."
    )
    archived_at: datetime | None = strawberry.field(
        description="While ARCHIVED: when its entries' text and content went to object storage."
    )
    archive_artifact_id: strawberry.ID | None = strawberry.field(
        description="While ARCHIVED: the MemoryArtifact (kind archive) holding them."
    )
    ttl_seconds: int | None = strawberry.field(
        description="Seconds it lives after its last entry (null: never expires)."
    )
    entry_ttl_seconds: int | None = strawberry.field(
        description="Seconds each new entry lives unless its put says (null: never)."
    )
    expires_at: datetime | None = strawberry.field(
        description="When the sweeper purges it with its entries, unless an entry comes first."
    )
