"""Deleting working-memory entries: one entry, or every entry of a timeline, of an open session.

Soft by default, like forgetting a record: the entry stays (active = false, deleted_at set) so
that the access log and any links keep their target, and it disappears from every session read
and from search. `hard` removes the entry node with its versions and artifacts from the graph,
then the stored objects (long content, attachments) that nothing points at any more.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from app.artifacts.store import ArtifactStore
from app.domain.kernel.ids import check_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import missing
from app.domain.memory import Audit, audited, check_segment, purge_record, remove_unreferenced
from app.domain.sessions import rules
from app.domain.sessions.repository import (
    locked_session,
    owned_session,
    session_changed,
    session_record,
    session_scope,
)
from app.graph.change_feed import note_change
from app.graph.executor import GraphExecutor, Tx
from app.graph.fragments import lock
from app.model.enums import ChangeAction

LOCK_ENTRY_SESSION = f"""
MATCH (s:MemorySession {{client_id: $client_id}})-[:HAS_ENTRY]->
      (:MemoryRecord {{id: $entry_id, client_id: $client_id, active: true}})
{lock("s")}
RETURN s {{.*}} AS session
"""
# $entry_id null: every live entry of the timeline.
DELETE_ENTRIES = f"""
MATCH (s:MemorySession {{id: $id, client_id: $client_id}})
OPTIONAL MATCH (s)-[:HAS_ENTRY]->(e:MemoryRecord)
WHERE e.active AND ($entry_id IS NULL OR e.id = $entry_id)
  AND ($timeline IS NULL OR e.timeline = $timeline)
WITH s, collect(e) AS gone, collect(e.id) AS ids
CALL (gone) {{
  UNWIND CASE WHEN $hard THEN [] ELSE gone END AS e
  SET e.active = false, e.deleted_at = $now, e.updated_at = $now
}}
CALL (gone) {{
  UNWIND CASE WHEN $hard THEN gone ELSE [] END AS r
  {purge_record()}
  RETURN collect(uris) AS purged
}}
SET s.entry_count = s.entry_count - size(gone), s.updated_at = $now,
    s.timelines = CASE WHEN $timeline IS NULL THEN s.timelines
                       ELSE [t IN s.timelines WHERE t <> $timeline] END
RETURN ids, reduce(all = [], uris IN purged | all + uris) AS uris
"""


@dataclass(frozen=True)
class Deleted:
    session_id: str
    count: int
    objects: int = 0  # stored objects removed with hard-deleted entries


@dataclass(frozen=True)
class _Removed:
    session_id: str
    count: int
    uris: list[str]


async def _delete(
    tx: Tx, scope: dict[str, str], *, entry_id: str | None, timeline: str | None, hard: bool
) -> _Removed:
    params = scope | {"entry_id": entry_id, "timeline": timeline, "hard": hard}
    rows = await tx.run(DELETE_ENTRIES, params | {"now": datetime.now(UTC)})
    if not rows:
        return _Removed(scope["id"], 0, [])
    # Soft or hard, the entry is gone for every reader.
    for record_id in rows[0]["ids"]:
        note_change(
            scope["client_id"],
            "MemoryRecord",
            record_id,
            ChangeAction.DELETED,
            parent_id=scope["id"],
        )
    session_changed(scope)
    return _Removed(scope["id"], len(rows[0]["ids"]), list(rows[0]["uris"]))


async def _committed(
    graph: GraphExecutor, artifacts: ArtifactStore, removed: _Removed, audit: Audit
) -> Deleted:
    """Once the deletion is committed: the objects only the purged entries pointed at go too."""
    objects = await remove_unreferenced(graph, artifacts, removed.uris)
    if objects:
        audit.detail = f"{audit.detail}, {objects} objects"
    return Deleted(removed.session_id, removed.count, objects)


async def delete_entry(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    entry_id: str,
    hard: bool = False,
) -> Deleted:
    """Delete one live entry (NOT_FOUND for an unknown, deleted or other client's entry)."""
    principal.require_writer()
    entry = check_id(entry_id, field="entry_id")
    params = {"entry_id": entry, "client_id": principal.client_id}

    async def work(tx: Tx) -> _Removed:
        rows = await tx.run(LOCK_ENTRY_SESSION, params)
        if not rows:
            raise missing("session entry", entry)
        session = owned_session(principal, session_record(rows[0]["session"]))
        rules.check_open(session)
        scope = {"id": session["id"], "client_id": principal.client_id}
        return await _delete(tx, scope, entry_id=entry, timeline=None, hard=hard)

    with audited(principal, "purge" if hard else "delete", target_id=entry) as audit:
        audit.detail = "session entry"
        return await _committed(graph, artifacts, await graph.in_transaction(work), audit)


async def delete_timeline(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    session_id: str,
    timeline: str,
    hard: bool = False,
) -> Deleted:
    """Delete every live entry of one timeline of an open session; the count (0 for a timeline
    without entries)."""
    principal.require_writer()
    scope = session_scope(principal, session_id, field="session_id")
    name = check_segment(timeline, field="timeline")

    async def work(tx: Tx) -> _Removed:
        rules.check_open(await locked_session(tx, scope, principal))
        return await _delete(tx, scope, entry_id=None, timeline=name, hard=hard)

    with audited(principal, "purge" if hard else "delete", target_id=scope["id"]) as audit:
        audit.target_type, audit.detail = "MemorySession", f"timeline {name}"
        return await _committed(graph, artifacts, await graph.in_transaction(work), audit)
