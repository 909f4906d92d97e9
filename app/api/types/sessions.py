"""Working-memory sessions (seed 003); fields from app/model."""

from __future__ import annotations

from datetime import datetime

import strawberry

from app.api.types.base import NodeType, node_type


@node_type(
    "MemorySession",
    "A working-memory session of an agent (with a subject): entries on timelines, "
    "flushed at the end into one episodic summary. Flushed sessions are read-only. The "
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
