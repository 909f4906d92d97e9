"""Archiving a flushed session (seed 004 is_archived: old sessions go to cold storage).

archiveSession moves the text and inline content of every entry of the session (deleted ones
too) into one JSON object in storage, client/{client_id}/sessions/{id}/archive/{sha256}, stored
BEFORE the MemoryArtifact (kind "archive", HAS_ARTIFACT) that points at it; then, in one
transaction under the session's lock, the entries lose that text and content, and the session
becomes `archived` with archive_artifact_id naming the artifact. Content already in object
storage (content_uri) stays where it is. The summary is not an entry: it stays in the graph, so
an archived session is still found by its summary (searchEpisodicSummaries, search). Entries
keep their key, tags and every other property; the embedding worker re-indexes them without
their text (their updated_at moves).

unarchiveSession (unarchive.py) reads the object back, restores each entry, deletes the
artifact (and then its object) and makes the session `flushed` again.

Only a flushed session can be archived: an open one is still being written (end it first), and
its summary is what keeps it findable.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.artifacts.staged import staged_uploads
from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import Conflict, InvalidTransition
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import stored_object
from app.domain.memory import audited
from app.domain.sessions.repository import (
    SESSION,
    locked_session,
    owned_session,
    session_changed,
    session_record,
    session_scope,
)
from app.graph.change_feed import note_change
from app.graph.executor import GraphExecutor, Tx
from app.model.enums import ChangeAction, MemorySessionStatus

ARCHIVE_KIND = "archive"
ARCHIVE_FORMAT = "agentmem.session-archive.v1"
ARCHIVE_CONTENT_TYPE = "application/json"
# Every entry holding text or inline content in the graph (live, deleted or expired).
INLINE_ENTRIES = """
MATCH (s:MemorySession {id: $id, client_id: $client_id})-[:HAS_ENTRY]->
      (e:MemoryRecord {client_id: $client_id})
WHERE e.text IS NOT NULL OR e.content IS NOT NULL
RETURN e.id AS id, e.text AS text, e.content AS content_json ORDER BY e.created_at, e.id
"""
# Clears exactly what the archive holds; `left` counts what it does not (an entry changed
# since it was read), which refuses the archive.
ARCHIVE = """
MATCH (s:MemorySession {id: $id, client_id: $client_id})
CALL (s) {
  UNWIND $entries AS row
  MATCH (s)-[:HAS_ENTRY]->(e:MemoryRecord {id: row.id, client_id: $client_id})
  WHERE (e.text = row.text OR (e.text IS NULL AND row.text IS NULL))
    AND (e.content = row.content_json OR (e.content IS NULL AND row.content_json IS NULL))
  SET e.text = null, e.content = null, e.updated_at = $now
  RETURN count(e) AS moved
}
WITH s, moved, COUNT {
  MATCH (s)-[:HAS_ENTRY]->(e:MemoryRecord {client_id: $client_id})
  WHERE e.text IS NOT NULL OR e.content IS NOT NULL
} AS left
CREATE (s)-[:HAS_ARTIFACT]->(a:MemoryArtifact)
SET a = $artifact, s += $changes
RETURN moved, left, s {.*} AS session
"""


@dataclass(frozen=True)
class Archived:
    session: dict[str, Any]
    artifact: dict[str, Any]
    entries_moved: int


def check_status(session: dict[str, Any], wanted: MemorySessionStatus, *, action: str) -> None:
    """`action` is allowed only from `wanted` (INVALID_TRANSITION naming the status)."""
    if session["status"] != wanted.value:
        hint = (
            " (end it first: endSession)" if session["status"] == MemorySessionStatus.OPEN else ""
        )
        raise InvalidTransition(
            f"session {session['id']} is {session['status']}: only a {wanted.value} session "
            f"can be {action}{hint}",
            id=session["id"],
            status=session["status"],
        )


def archive_bytes(session_id: str, entries: list[dict[str, Any]], now: datetime) -> bytes:
    """The archived entries as one JSON document (README: Session archives)."""
    document = {
        "format": ARCHIVE_FORMAT,
        "session_id": session_id,
        "archived_at": now.isoformat(),
        "entries": entries,
    }
    return json.dumps(document, ensure_ascii=False, sort_keys=True).encode()


def _artifact(principal: Principal, session_id: str, stored: Any, now: datetime) -> dict[str, Any]:
    return {
        "id": new_id(),
        "client_id": principal.client_id,
        "owner_id": session_id,
        "kind": ARCHIVE_KIND,
        **stored_object(stored),
        "created_at": now,
        "updated_at": now,
    }


def noted_archive(
    scope: dict[str, Any], artifact_id: str, entry_ids: list[str], action: ChangeAction
) -> None:
    """Notes what (un)archiving changed: the session, its entries' text and content, and the
    archive's artifact (created, or deleted)."""
    client_id, session_id = scope["client_id"], scope["id"]
    session_changed(scope)
    for entry_id in entry_ids:
        note_change(client_id, "MemoryRecord", entry_id, ChangeAction.UPDATED, parent_id=session_id)
    note_change(client_id, "MemoryArtifact", artifact_id, action, parent_id=session_id)


async def archive_session(
    graph: GraphExecutor, artifacts: ArtifactStore, *, principal: Principal, session_id: str
) -> Archived:
    """Archive a flushed session (see the module doc); CONFLICT if an entry changed meanwhile
    (nothing is changed: retry)."""
    principal.require_writer()
    scope = session_scope(principal, session_id)
    with audited(principal, "archive", target_id=scope["id"]) as audit:
        audit.target_type, audit.session_id = "MemorySession", scope["id"]
        session = owned_session(principal, await SESSION.read(graph, scope))
        check_status(session, MemorySessionStatus.FLUSHED, action="archived")
        entries = [dict(row) for row in await graph.read(INLINE_ENTRIES, scope)]
        now = datetime.now(UTC)
        data = archive_bytes(scope["id"], entries, now)
        parts = ("sessions", scope["id"], ARCHIVE_KIND, hashlib.sha256(data).hexdigest())
        async with staged_uploads(artifacts, principal, shared=True) as uploads:
            stored = await uploads.put(parts, data, content_type=ARCHIVE_CONTENT_TYPE)
            artifact = _artifact(principal, scope["id"], stored, now)
            changes = {
                "status": MemorySessionStatus.ARCHIVED.value,
                "archived_at": now,
                "archive_artifact_id": artifact["id"],
                "updated_at": now,
            }
            params = scope | {"entries": entries, "artifact": artifact, "changes": changes}

            async def work(tx: Tx) -> Archived:
                locked = await locked_session(tx, scope, principal)
                check_status(locked, MemorySessionStatus.FLUSHED, action="archived")
                row = (await tx.run(ARCHIVE, params | {"now": now}))[0]
                if int(row["moved"]) != len(entries) or int(row["left"]):
                    raise Conflict(
                        f"entries of session {scope['id']} changed while it was archived; "
                        "nothing was archived: retry",
                        id=scope["id"],
                    )
                moved = [entry["id"] for entry in entries]
                noted_archive(scope, artifact["id"], moved, ChangeAction.CREATED)
                return Archived(session_record(row["session"]), artifact, len(entries))

            archived = await graph.in_transaction(work)
        audit.detail = f"{archived.entries_moved} entries to {stored.uri}"
    return archived
