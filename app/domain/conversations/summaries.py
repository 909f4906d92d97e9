"""Thread summaries (seed 000, 5.4): the summary queue, versioned ThreadSummary nodes written by
agents or by the built-in extractive summarizer. Versions are kept, never overwritten."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.conversations.fields import (
    MAX_SUMMARY_LONG,
    MAX_SUMMARY_SHORT,
    open_questions_text,
    summary_text,
)
from app.domain.conversations.reads import hydrate_all, thread_events
from app.domain.conversations.repository import (
    changed_thread,
    get_thread,
    locked_thread,
    thread_record,
    thread_scope,
)
from app.domain.conversations.rules import (
    REQUESTED,
    ConversationPolicy,
    after_summary,
    queue_changes,
)
from app.domain.conversations.summarizer import MAX_SCANNED, Message, summarize
from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.ids import new_id
from app.domain.kernel.pagination import check_page_size
from app.domain.kernel.principal import Principal
from app.graph.change_feed import note_change
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import ChangeAction

EXTRACTIVE_EVENTS = 200
CREATE_SUMMARY = """
MATCH (t:ConversationThread {id: $id, client_id: $client_id})
CREATE (t)-[:HAS_SUMMARY]->(s:ThreadSummary)
SET s = $summary, t += $changes
RETURN s {.*} AS summary, t {.*} AS thread
"""
QUEUE = """
MATCH (t:ConversationThread {client_id: $client_id, needs_summary: true})
RETURN t {.*} AS thread
ORDER BY t.needs_summary_since, t.id
LIMIT $first
"""


@dataclass(frozen=True)
class SummaryWrite:
    summary: dict[str, Any]
    thread: dict[str, Any]


async def summary_queue(
    graph: GraphExecutor, *, principal: Principal, first: int = 20
) -> list[dict[str, Any]]:
    """The caller's threads that need a summary, longest waiting first."""
    params = {"client_id": principal.client_id, "first": check_page_size(first)}
    return [thread_record(row["thread"]) for row in await graph.read(QUEUE, params)]


async def request_summary(
    graph: GraphExecutor, *, principal: Principal, thread_id: str
) -> dict[str, Any]:
    """Queue a thread for a summary (reason `requested` unless it is already queued)."""
    principal.require_writer()
    scope = thread_scope(principal, thread_id)

    async def work(tx: Tx) -> dict[str, Any]:
        thread = await locked_thread(tx, scope)
        now = datetime.now(UTC)
        changes = queue_changes(flagged=thread["needs_summary"], reason=REQUESTED, now=now)
        return await changed_thread(tx, scope, changes, now=now)

    return await graph.in_transaction(work)


async def write_summary(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    policy: ConversationPolicy,
    thread_id: str,
    summary_short: str,
    summary_long: str | None = None,
    open_questions: list[str] | None = None,
    events_covered: int | None = None,
    method: str = "agent",
) -> SummaryWrite:
    """A new summary version of the thread (events 1..events_covered, default: all); the
    thread shows it as summary_short and leaves the queue unless N events arrived meanwhile.
    The long summary, if any, is stored in object storage first."""
    principal.require_writer()
    scope = thread_scope(principal, thread_id, field="thread_id")
    short = summary_text(summary_short, field="summary_short", limit=MAX_SUMMARY_SHORT)
    questions = None if open_questions is None else open_questions_text(open_questions)
    long_uri = None
    if summary_long is not None:
        data = summary_text(summary_long, field="summary_long", limit=MAX_SUMMARY_LONG).encode()
        thread = await get_thread(graph, principal=principal, thread_id=scope["id"])
        # Checked before anything is stored too (the transaction checks again, under the lock).
        _covered(events_covered, int(thread["event_count"]))
        parts = ("threads", scope["id"], "summaries", hashlib.sha256(data).hexdigest())
        put = await artifacts.put(principal, parts, data, content_type="text/markdown")
        long_uri = put.uri

    async def work(tx: Tx) -> SummaryWrite:
        thread = await locked_thread(tx, scope)
        count = int(thread["event_count"])
        covered = _covered(events_covered, count)
        now = datetime.now(UTC)
        version = int(thread["summary_version"]) + 1
        summary = {
            "id": new_id(),
            "client_id": principal.client_id,
            "thread_id": scope["id"],
            "version": version,
            "summary_short": short,
            "summary_long_uri": long_uri,
            "author": principal.actor,
            "method": method,
            "events_covered": covered,
            "created_at": now,
            "updated_at": now,
        }
        changes = {
            "summary_short": short,
            "summary_long_uri": long_uri,
            "summary_version": version,
            "updated_at": now,
        } | after_summary(event_count=count, events_covered=covered, policy=policy, now=now)
        if open_questions is not None:
            changes["open_questions"] = questions
        rows = await tx.run(CREATE_SUMMARY, scope | {"summary": summary, "changes": changes})
        client_id, created = principal.client_id, ChangeAction.CREATED
        note_change(client_id, "ThreadSummary", summary["id"], created, parent_id=scope["id"])
        note_change(client_id, "ConversationThread", scope["id"], ChangeAction.UPDATED)
        return SummaryWrite(plain(rows[0]["summary"]), thread_record(rows[0]["thread"]))

    return await graph.in_transaction(work)


def _covered(events_covered: int | None, count: int) -> int:
    """The events a summary covers (default: all of the thread's `count`)."""
    covered = count if events_covered is None else events_covered
    if not 0 <= covered <= count:
        raise ValidationFailed(
            f"events_covered must be between 0 and the thread's {count} events",
            field="events_covered",
        )
    return covered


async def summarize_thread(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    policy: ConversationPolicy,
    thread_id: str,
) -> SummaryWrite:
    """Summarize the thread's last 200 events with the extractive summarizer and store it as a
    version with method `extractive`; its open questions fill the thread's when it has none."""
    principal.require_writer()
    thread, events = await thread_events(
        graph, principal=principal, thread_id=thread_id, last=EXTRACTIVE_EVENTS
    )
    if not events:
        raise ValidationFailed("the thread has no events to summarize", field="thread_id")
    events = await hydrate_all(artifacts, principal=principal, events=events, chars=MAX_SCANNED)
    draft = summarize(
        [
            Message(e["direction"], e.get("text") or "", e["event_type"], bool(e.get("media_uris")))
            for e in events
        ],
        participant=thread.get("participant_external_ref"),
        platform=thread["platform"],
        thread_type=thread["thread_type"],
    )
    keep_questions = bool(thread.get("open_questions"))
    return await write_summary(
        graph,
        artifacts,
        principal=principal,
        policy=policy,
        thread_id=thread["id"],
        summary_short=draft.short,
        summary_long=draft.long,
        open_questions=None if keep_questions else draft.open_questions,
        events_covered=int(events[-1]["sequence"]),
        method="extractive",
    )
