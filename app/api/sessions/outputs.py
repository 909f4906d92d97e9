"""Result types of the session operations, built from the domain's records."""

from __future__ import annotations

import base64
from datetime import datetime
from typing import Any

import strawberry

from app.api.sessions.inputs import RehydrateMode
from app.api.sessions.learning import LearnedFactResult
from app.api.types.memory import MemoryArtifact, MemoryRecord
from app.api.types.sessions import MemorySession
from app.domain.memory import decode_inline
from app.domain.sessions import ArtifactContent, Rehydrated
from app.domain.sessions.deletes import Deleted
from app.retrieval.search import SearchHit


@strawberry.type
class StartSessionPayload:
    session: MemorySession
    created: bool = strawberry.field(description="False when externalRef named an existing one.")


@strawberry.type(description="What a delete removed (live entries only).")
class DeletedSessionEntries:
    session_id: strawberry.ID
    count: int
    objects_deleted: int = strawberry.field(
        default=0,
        description="Stored objects (long content, attachments) removed with hard-deleted "
        "entries, once nothing else pointed at them.",
    )


def deleted_entries(deleted: Deleted) -> DeletedSessionEntries:
    return DeletedSessionEntries(
        session_id=strawberry.ID(deleted.session_id),
        count=deleted.count,
        objects_deleted=deleted.objects,
    )


@strawberry.type
class EndSessionPayload:
    session: MemorySession
    summary: MemoryRecord = strawberry.field(description="The episodic summary (kind episodic).")
    entries_summarized: int = strawberry.field(description="Entries linked by SUMMARIZES.")
    facts: list[LearnedFactResult] = strawberry.field(
        description="The outcome of each extracted fact, in the order given."
    )


@strawberry.type(description="The live entries of one timeline, in order.")
class SessionTimeline:
    name: str
    entries: list[MemoryRecord]


@strawberry.type
class RehydratedSession:
    session: MemorySession
    mode: RehydrateMode
    summary: MemoryRecord | None = strawberry.field(description="Null until the flush.")
    entries: list[MemoryRecord] = strawberry.field(
        description="FULL: every live entry of every timeline, in order; SUMMARY_ONLY: none."
    )
    timelines: list[SessionTimeline] = strawberry.field(
        description="The same entries grouped by timeline (timelines in order of first entry)."
    )
    total_entries: int
    truncated: bool = strawberry.field(description="More live entries exist than `limit`.")


@strawberry.type
class SessionEntryHit:
    entry: MemoryRecord
    score: float
    why: list[str]


@strawberry.type(description="An episodic record found by searchEpisodicSummaries.")
class EpisodicSummaryHit:
    summary: MemoryRecord
    session_id: strawberry.ID | None = strawberry.field(description="Null for other episodes.")
    agent: str | None
    subject: str | None
    entry_count: int | None
    timeline_count: int | None
    duration_seconds: float | None
    created_at: datetime
    score: float
    why: list[str]


@strawberry.type
class SessionArtifactContent:
    artifact: MemoryArtifact
    content_base64: str
    text: str | None = strawberry.field(description="The content as UTF-8 text, when it is.")
    intact: bool = strawberry.field(description="The bytes read back match the sha256.")


def rehydrated(
    found: Rehydrated,
    mode: RehydrateMode,
    session: MemorySession,
    summary: MemoryRecord | None,
    entries: list[MemoryRecord],
) -> RehydratedSession:
    grouped: dict[str, list[MemoryRecord]] = {}
    for entry in entries:
        grouped.setdefault(str(entry.timeline), []).append(entry)
    return RehydratedSession(
        session=session,
        mode=mode,
        summary=summary,
        entries=entries,
        timelines=[SessionTimeline(name=name, entries=items) for name, items in grouped.items()],
        total_entries=found.total_entries,
        truncated=found.truncated,
    )


def hit_record(hit: SearchHit) -> dict[str, Any]:
    return decode_inline(hit.record)


def entry_hit(hit: SearchHit, entry: MemoryRecord) -> SessionEntryHit:
    return SessionEntryHit(entry=entry, score=hit.score, why=hit.why)


def episodic_hit(hit: SearchHit, summary: MemoryRecord) -> EpisodicSummaryHit:
    found = hit_record(hit)
    content = found.get("content")
    facts: dict[str, Any] = content if isinstance(content, dict) else {}
    return EpisodicSummaryHit(
        summary=summary,
        session_id=found.get("session_id"),
        agent=found.get("agent"),
        subject=found.get("subject"),
        entry_count=facts.get("entry_count"),
        timeline_count=facts.get("timeline_count"),
        duration_seconds=facts.get("duration_seconds"),
        created_at=found["created_at"],
        score=hit.score,
        why=hit.why,
    )


def artifact_content(found: ArtifactContent) -> SessionArtifactContent:
    try:
        text: str | None = found.data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    return SessionArtifactContent(
        artifact=MemoryArtifact.from_row(found.artifact),
        content_base64=base64.b64encode(found.data).decode(),
        text=text,
        intact=found.intact,
    )
