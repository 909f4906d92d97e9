"""Unarchiving a session (archive.py): its archive object is read back and checked (sha256,
format, session), then one transaction under the session's lock gives each entry its text and
inline content again (only entries still without both: nothing written since is overwritten),
deletes the archive's MemoryArtifact and makes the session `flushed`; once that is committed,
the object goes too (unless something else points at it). The entries' updated_at moves, so
the embedding worker indexes their text again."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import AppError, Conflict
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import missing
from app.domain.memory import audited, remove_unreferenced
from app.domain.sessions.archive import ARCHIVE_FORMAT, check_status, noted_archive
from app.domain.sessions.repository import (
    SESSION,
    locked_session,
    owned_session,
    session_record,
    session_scope,
)
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import ChangeAction, MemorySessionStatus

ARCHIVE_ARTIFACT = """
MATCH (:MemorySession {id: $id, client_id: $client_id})-[:HAS_ARTIFACT]->
      (a:MemoryArtifact {id: $artifact_id, client_id: $client_id})
RETURN a {.*} AS artifact
"""
RESTORE = """
MATCH (s:MemorySession {id: $id, client_id: $client_id})
CALL (s) {
  UNWIND $entries AS row
  MATCH (s)-[:HAS_ENTRY]->(e:MemoryRecord {id: row.id, client_id: $client_id})
  WHERE e.text IS NULL AND e.content IS NULL
  SET e.text = row.text, e.content = row.content_json, e.updated_at = $now
  RETURN collect(e.id) AS restored
}
CALL (s) {
  MATCH (s)-[:HAS_ARTIFACT]->(a:MemoryArtifact {id: $artifact_id, client_id: $client_id})
  DETACH DELETE a
}
SET s += $changes
RETURN restored, s {.*} AS session
"""


class ArchiveCorrupted(AppError):
    """The archive object does not hash to what was recorded, or is not this session's (the
    code the constraint documents use for the same failure)."""

    code = "CONTENT_CORRUPTED"


@dataclass(frozen=True)
class Unarchived:
    session: dict[str, Any]
    entries_restored: int
    objects_deleted: int


def archived_entries(data: bytes, artifact: dict[str, Any], session_id: str) -> list[Any]:
    """The entries of an archive object, once it is shown to be the one archived."""
    if hashlib.sha256(data).hexdigest() != artifact["sha256"]:
        raise ArchiveCorrupted(
            f"the archive {artifact['uri']} of session {session_id} does not match its sha256; "
            "the session stays archived",
            id=session_id,
        )
    document = json.loads(data)
    if document.get("format") != ARCHIVE_FORMAT or document.get("session_id") != session_id:
        raise ArchiveCorrupted(f"{artifact['uri']} is not an archive of session {session_id}")
    return list(document["entries"])


async def _archive_of(
    graph: GraphExecutor, scope: dict[str, Any], session: dict[str, Any]
) -> dict[str, Any]:
    params = scope | {"artifact_id": session["archive_artifact_id"]}
    rows = await graph.read(ARCHIVE_ARTIFACT, params)
    if not rows:
        raise missing("session archive", str(session["archive_artifact_id"]))
    return dict(plain(rows[0]["artifact"]))


async def unarchive_session(
    graph: GraphExecutor, artifacts: ArtifactStore, *, principal: Principal, session_id: str
) -> Unarchived:
    """Bring an archived session's entries back (see the module doc)."""
    principal.require_writer()
    scope = session_scope(principal, session_id)
    with audited(principal, "unarchive", target_id=scope["id"]) as audit:
        audit.target_type, audit.session_id = "MemorySession", scope["id"]
        session = owned_session(principal, await SESSION.read(graph, scope))
        check_status(session, MemorySessionStatus.ARCHIVED, action="unarchived")
        artifact = await _archive_of(graph, scope, session)
        data = await artifacts.get(principal, artifact["uri"])
        entries = archived_entries(data, artifact, scope["id"])
        now = datetime.now(UTC)
        changes = {
            "status": MemorySessionStatus.FLUSHED.value,
            "archived_at": None,
            "archive_artifact_id": None,
            "updated_at": now,
        }
        params = scope | {"entries": entries, "artifact_id": artifact["id"], "changes": changes}

        async def work(tx: Tx) -> tuple[dict[str, Any], int]:
            locked = await locked_session(tx, scope, principal)
            check_status(locked, MemorySessionStatus.ARCHIVED, action="unarchived")
            if locked.get("archive_artifact_id") != artifact["id"]:
                raise Conflict(f"session {scope['id']} was archived again meanwhile: retry")
            row = (await tx.run(RESTORE, params | {"now": now}))[0]
            noted_archive(scope, artifact["id"], list(row["restored"]), ChangeAction.DELETED)
            return session_record(row["session"]), len(row["restored"])

        restored, count = await graph.in_transaction(work)
        objects = await remove_unreferenced(graph, artifacts, [artifact["uri"]])
        audit.detail = f"{count} entries from {artifact['uri']}"
    return Unarchived(restored, count, objects)
