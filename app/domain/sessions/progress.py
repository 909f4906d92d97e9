"""Summarising an open session without ending it (seed 003 summarizeMemory): the session's
progress summary, one episodic MemoryRecord under its own key in the session's namespace
(PROGRESS_KEY), written as the flush writes the final one (the agent's text, else the built-in
extractive summary of the entries so far) and linked (summary)-[:SUMMARIZES]->(each live
entry). Each call makes a new version of it (the earlier texts stay in its history); the
session stays open and takes entries. One transaction under the session's lock.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.domain.kernel.principal import Principal
from app.domain.memory import audited, write_memory
from app.domain.sessions import rules
from app.domain.sessions.flush import ENTRIES_TO_SUMMARIZE, EXTRACTIVE_ENTRIES, summary_memory
from app.domain.sessions.repository import (
    LIVE_ENTRY,
    entry_record,
    locked_session,
    session_record,
    session_scope,
)
from app.graph.executor import GraphExecutor, Tx
from app.graph.fragments import record_projection

PROGRESS_KEY = "session-progress"
LINK_PROGRESS = f"""
MATCH (s:MemorySession {{id: $id, client_id: $client_id}})
MATCH (m:MemoryRecord {{id: $summary_id, client_id: $client_id}})
CALL (s, m) {{
  MATCH {LIVE_ENTRY}
  MERGE (m)-[:SUMMARIZES]->(e)
  RETURN count(e) AS linked
}}
RETURN {record_projection("m")} AS summary, s {{.*}} AS session, linked
"""


@dataclass(frozen=True)
class Progress:
    session: dict[str, Any]
    summary: dict[str, Any]
    entries_summarized: int


async def summarize_session(
    graph: GraphExecutor, *, principal: Principal, session_id: str, summary: str | None = None
) -> Progress:
    """The session's progress summary, written anew (INVALID_TRANSITION once it is flushed)."""
    principal.require_writer()
    scope = session_scope(principal, session_id)
    text = rules.check_summary(summary)

    async def work(tx: Tx) -> Progress:
        session = await locked_session(tx, scope, principal)
        rules.check_open(session)
        read = (await tx.run(ENTRIES_TO_SUMMARIZE, scope | {"last": EXTRACTIVE_ENTRIES}))[0]
        now = datetime.now(UTC)
        memory = summary_memory(principal, session, read, text, now, key=PROGRESS_KEY)
        written = await write_memory(
            tx, principal=principal, memory=memory, now=now, parent_id=scope["id"]
        )
        params = scope | {"summary_id": written.record["id"]}
        row = (await tx.run(LINK_PROGRESS, params))[0]
        return Progress(
            session_record(row["session"]), entry_record(row["summary"]), int(row["linked"])
        )

    with audited(principal, "summarize", target_id=scope["id"]) as audit:
        audit.target_type, audit.detail = "MemorySession", "progress"
        progress = await graph.in_transaction(work)
        audit.detail = f"progress: summary {progress.summary['id']} v{progress.summary['version']}"
    return progress
