"""Ending a working-memory session with flush (seed 003 endSession(flush: true)): one episodic
MemoryRecord summarises the session, (summary)-[:SUMMARIZES]->(each live entry) and
(session)-[:SUMMARIZED_AS]->(summary); the session becomes `flushed` (ended_at set) and
read-only. The summary is the agent's text when given, else the built-in extractive one
(session_summary). All of it is one transaction under the session's lock, so no entry can be
put between the summary and the status change.

Flushing a flushed session is an error (INVALID_TRANSITION naming the summary), not a no-op:
a second flush with a different summary text would otherwise be silently dropped.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from app.domain.kernel.principal import Principal
from app.domain.memory import (
    DEFAULT_PRIORITY,
    PreparedMemory,
    StoredContent,
    audited,
    check_memory,
    content_bytes,
    write_memory,
)
from app.domain.sessions import rules
from app.domain.sessions import summary as summaries
from app.domain.sessions.fact_rules import check_facts
from app.domain.sessions.facts import LearnedFact, learn_facts
from app.domain.sessions.repository import (
    LIVE_ENTRY,
    entry_record,
    locked_session,
    session_changed,
    session_record,
    session_scope,
)
from app.graph.executor import GraphExecutor, Tx
from app.graph.fragments import record_projection
from app.model.enums import MemoryKind, MemorySessionStatus

SUMMARY_KEY = "session-summary"
SUMMARY_TAG = "session-summary"
EXTRACTIVE_ENTRIES = 500
ENTRIES_TO_SUMMARIZE = f"""
MATCH (s:MemorySession {{id: $id, client_id: $client_id}})
CALL (s) {{
  MATCH {LIVE_ENTRY}
  WITH e ORDER BY e.created_at DESC, e.id DESC LIMIT $last
  RETURN collect({record_projection("e")}) AS newest
}}
RETURN newest, COLLECT {{
  MATCH {LIVE_ENTRY}
  WITH e.timeline AS timeline, count(*) AS entries, min(e.created_at) AS first,
       max(e.priority) AS top
  RETURN {{timeline: timeline, entries: entries, top: top}} ORDER BY first
}} AS timelines
"""
FLUSH = f"""
MATCH (s:MemorySession {{id: $id, client_id: $client_id}})
MATCH (m:MemoryRecord {{id: $summary_id, client_id: $client_id}})
CREATE (s)-[:SUMMARIZED_AS]->(m)
SET s += $changes
WITH s, m
CALL (s, m) {{
  MATCH {LIVE_ENTRY}
  CREATE (m)-[:SUMMARIZES]->(e)
  RETURN count(e) AS linked
}}
RETURN {record_projection("m")} AS summary, s {{.*}} AS session, linked
"""


@dataclass(frozen=True)
class Flushed:
    session: dict[str, Any]
    summary: dict[str, Any]
    entries_summarized: int
    facts: list[LearnedFact] = field(default_factory=list)  # extracted facts (facts.py)


def summary_memory(
    principal: Principal,
    session: dict[str, Any],
    read: dict[str, Any],
    text: str | None,
    now: datetime,
    *,
    key: str = SUMMARY_KEY,
) -> PreparedMemory:
    """The summary as a memory in the session's own namespace, under one key per session (a
    mid-session summary has its own: progress.py)."""
    counts = {t["timeline"]: int(t["entries"]) for t in read["timelines"]}
    method = "extractive" if text is None else "agent"
    if text is None:
        entries = [entry_record(e) for e in reversed(read["newest"])]
        text = summaries.summary_text(session, entries, counts, now)
    fields = {
        "subject": session.get("subject"),
        "agent": session["agent"],
        "session_id": session["id"],
        "key": key,
        "kind": MemoryKind.EPISODIC.value,
        "text": text,
        "tags": [key],
        "priority": max((int(t["top"]) for t in read["timelines"]), default=DEFAULT_PRIORITY),
        "source_agent": session["agent"],
    }
    memory = check_memory(fields, principal=principal, now=now)
    # Small by construction, so inline: no object storage call inside the transaction.
    data = content_bytes(summaries.summary_content(session, counts, now, method=method)) or b""
    stored = StoredContent(data.decode(), None, hashlib.sha256(data).hexdigest(), len(data))
    return replace(memory, state=memory.state | stored.props())


async def end_session(
    graph: GraphExecutor,
    *,
    principal: Principal,
    session_id: str,
    summary: str | None = None,
    facts: list[dict[str, Any]] | None = None,
) -> Flushed:
    """Flush the session into its episodic summary (see the module doc), and learn the facts
    the caller's model extracted from it, in the same transaction (facts.py)."""
    principal.require_writer()
    scope = session_scope(principal, session_id)
    text = rules.check_summary(summary)
    extracted = check_facts(facts)

    async def work(tx: Tx) -> Flushed:
        session = await locked_session(tx, scope, principal)
        rules.check_open(session)
        read = (await tx.run(ENTRIES_TO_SUMMARIZE, scope | {"last": EXTRACTIVE_ENTRIES}))[0]
        now = datetime.now(UTC)
        memory = summary_memory(principal, session, read, text, now)
        written = await write_memory(
            tx, principal=principal, memory=memory, now=now, parent_id=scope["id"]
        )
        changes = {
            "status": MemorySessionStatus.FLUSHED.value,
            "ended_at": now,
            "updated_at": now,
            "summary_record_id": written.record["id"],
        }
        params = scope | {"summary_id": written.record["id"], "changes": changes}
        row = (await tx.run(FLUSH, params))[0]
        session_changed(scope)
        learned = await learn_facts(
            tx, principal=principal, session=session, facts=extracted, now=now
        )
        return Flushed(
            session_record(row["session"]),
            entry_record(row["summary"]),
            int(row["linked"]),
            learned,
        )

    with audited(principal, "summarize", target_id=scope["id"]) as audit:
        audit.target_type, audit.detail = "MemorySession", "flush"
        flushed = await graph.in_transaction(work)
        audit.detail = f"flush: summary {flushed.summary['id']}, {len(flushed.facts)} facts"
    return flushed
