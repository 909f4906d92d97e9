"""Transcript retention (seed 003: "Retention: configurable, default 1 year"): a session's
transcripts (MemoryArtifact of kind transcript, attached to a MemorySession) older than
Settings.transcript_retention_days are purged by the sweeper, the node first, then its object
once nothing points at it (the key is content-addressed, so two attachments may share it).

Only transcripts go: other artifacts of a session, and the session's summary and entries,
stay, so that what was said is still remembered without its verbatim record."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from app.graph.change_feed import Changed
from app.graph.executor import GraphExecutor
from app.model.enums import ChangeAction

TRANSCRIPT_KIND = "transcript"
DAY_S = 86_400.0
# Seeks index memory_artifact_kind_created (migration 0032).
PURGE_OLD_TRANSCRIPTS = """
MATCH (a:MemoryArtifact {kind: $kind})
WHERE a.created_at <= $before AND ($client_id IS NULL OR a.client_id = $client_id)
  AND EXISTS { MATCH (:MemorySession {client_id: a.client_id})-[:HAS_ARTIFACT]->(a) }
WITH a LIMIT $batch
WITH a, a.client_id AS client_id, a.uri AS uri, {id: a.id, session_id: a.owner_id} AS gone
DETACH DELETE a
RETURN client_id, count(*) AS purged, collect(uri) AS uris, collect(gone) AS gone
"""


@dataclass
class TranscriptPurge:
    """One batch's outcome: transcripts purged per client, and the objects they pointed at."""

    per_client: dict[str, int] = field(default_factory=dict)
    uris: list[str] = field(default_factory=list)

    @property
    def purged(self) -> int:
        return sum(self.per_client.values())


def retention_cutoff(retention_days: float, now: datetime | None = None) -> datetime:
    """Transcripts created at or before this instant are past their retention."""
    return (now or datetime.now(UTC)) - timedelta(seconds=retention_days * DAY_S)


def purged(rows: list[dict[str, Any]]) -> list[Changed]:
    deleted = ChangeAction.DELETED
    return [
        Changed(row["client_id"], "MemoryArtifact", a["id"], deleted, parent_id=a["session_id"])
        for row in rows
        for a in row["gone"]
    ]


async def purge_old_transcripts(
    graph: GraphExecutor, *, retention_days: float, client_id: str | None, batch: int
) -> TranscriptPurge:
    """One batch of transcripts past their retention deleted from the graph (one client's, or
    every client's); the caller removes the objects once this is committed."""
    params: dict[str, Any] = {
        "kind": TRANSCRIPT_KIND,
        "before": retention_cutoff(retention_days),
        "client_id": client_id,
        "batch": batch,
    }
    found = TranscriptPurge()
    for row in await graph.write(PURGE_OLD_TRANSCRIPTS, params, changed=purged):
        found.per_client[row["client_id"]] = int(row["purged"])
        found.uris += list(row["uris"])
    return found
