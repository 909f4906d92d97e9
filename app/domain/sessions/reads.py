"""Reading working-memory sessions: a session, its live entries in order (by timeline, keyset
paginated oldest first) and rehydration (the summary only, or the summary and every live entry
in order). Entry content stored in object storage is read back (hydrated) with the entries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.pagination import Page, check_page_size, encode_cursor, keyset_params
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import missing
from app.domain.memory import audited, check_segment, hydrate_all
from app.domain.sessions.repository import (
    LIVE_ENTRY,
    SESSION,
    entry_record,
    session_record,
    session_scope,
)
from app.graph.executor import GraphExecutor
from app.graph.fragments import after_cursor, keyset_order, record_projection
from app.graph.values import plain

MAX_REHYDRATE = 5_000
OLDEST_FIRST = keyset_order("e", newest_first=False)
ENTRIES = f"""
MATCH (s:MemorySession {{id: $id, client_id: $client_id}})
CALL (s) {{
  MATCH {LIVE_ENTRY} WHERE $timeline IS NULL OR e.timeline = $timeline
  RETURN count(e) AS total
}}
CALL (s) {{
  MATCH {LIVE_ENTRY}
  WHERE ($timeline IS NULL OR e.timeline = $timeline)
    AND {after_cursor("e", newest_first=False)}
  WITH e {OLDEST_FIRST}
  RETURN collect({record_projection("e")}) AS entries
}}
RETURN s {{.*}} AS session, total, entries
"""
REHYDRATE = f"""
MATCH (s:MemorySession {{id: $id, client_id: $client_id}})
OPTIONAL MATCH (s)-[:SUMMARIZED_AS]->(m:MemoryRecord)
CALL (s) {{
  MATCH {LIVE_ENTRY} WHERE $full
  WITH e {OLDEST_FIRST}
  RETURN collect({record_projection("e")}) AS entries
}}
RETURN s {{.*}} AS session, {record_projection("m")} AS summary, entries,
       COUNT {{ MATCH {LIVE_ENTRY} }} AS total
"""


@dataclass(frozen=True)
class Rehydrated:
    session: dict[str, Any]
    summary: dict[str, Any] | None
    entries: list[dict[str, Any]]  # every timeline, in order; empty for summary only
    total_entries: int

    @property
    def truncated(self) -> bool:
        return bool(self.entries) and len(self.entries) < self.total_entries


async def _row(graph: GraphExecutor, query: str, params: dict[str, Any]) -> dict[str, Any]:
    rows = await graph.read(query, params)
    if not rows:
        raise missing("memory session", params["id"])
    return dict(plain(rows[0]))


async def get_session(
    graph: GraphExecutor, *, principal: Principal, session_id: str
) -> dict[str, Any]:
    scope = session_scope(principal, session_id)
    row = await SESSION.read(graph, scope)
    return session_record(row)


async def session_entries(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    session_id: str,
    timeline: str | None,
    first: int,
    after: str | None,
) -> Page[dict[str, Any]]:
    """Live entries of the session (of one timeline, or of all), oldest first."""
    scope = session_scope(principal, session_id, field="session_id")
    params = (
        scope
        | keyset_params(after)
        | {
            "timeline": None if timeline is None else check_segment(timeline, field="timeline"),
            "limit": check_page_size(first) + 1,
        }
    )
    with audited(principal, "list", target_id=scope["id"]) as audit:
        audit.target_type, audit.detail = "MemorySession", f"session entries {timeline or ''}"
        row = await _row(graph, ENTRIES, params)
        found = [entry_record(e) for e in row["entries"]]
        page = await hydrate_all(artifacts, principal, found[:first])
    return Page(
        items=page,
        cursors=[encode_cursor(e["created_at"], e["id"]) for e in page],
        total_count=int(row["total"]),
        has_next_page=len(found) > first,
    )


async def rehydrate_session(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    session_id: str,
    full: bool,
    limit: int = MAX_REHYDRATE,
) -> Rehydrated:
    """The session with its summary (null until flushed) and, when `full`, its first `limit`
    live entries of every timeline in order (total_entries says how many there are)."""
    if not 1 <= limit <= MAX_REHYDRATE:
        raise ValidationFailed(f"limit must be from 1 to {MAX_REHYDRATE}", field="limit")
    scope = session_scope(principal, session_id)
    with audited(principal, "read", target_id=scope["id"]) as audit:
        audit.target_type, audit.detail = "MemorySession", "rehydrate " + ("full" if full else "")
        params = scope | {"full": full, "limit": limit}
        row = await _row(graph, REHYDRATE, params)
        entries = await hydrate_all(artifacts, principal, [entry_record(e) for e in row["entries"]])
        summary = None if row["summary"] is None else entry_record(row["summary"])
    return Rehydrated(session_record(row["session"]), summary, entries, int(row["total"]))
