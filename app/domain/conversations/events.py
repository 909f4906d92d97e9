"""Appending ConversationEvents (seed 000, 5.3): idempotent by external_ref per thread, ordered
by a per-thread `sequence` assigned after locking the thread, many events in one transaction.

Per request: [one read when something goes to object storage: threads exist, which refs are
already there; then the uploads] one transaction: one query locks the threads, finds known
refs, creates the new events and updates the counters; a second one only when a thread joins
the summary queue (decided in Python by conversation_rules).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from neo4j.exceptions import ConstraintError

from app.artifacts.staged import staged_uploads
from app.artifacts.store import ArtifactStore
from app.domain.conversations.append import outcome, prepare, queue_updates
from app.domain.conversations.fields import EVENT_JSON, MAX_BATCH
from app.domain.conversations.rules import ConversationPolicy
from app.domain.conversations.uploads import PendingEvent, pending_event, store_all
from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import decoded
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import missing
from app.graph.change_feed import note_change, unrecorded
from app.graph.executor import GraphExecutor, Tx
from app.graph.fragments import lock
from app.graph.values import plain
from app.model.enums import ChangeAction

PRECHECK = """
UNWIND $items AS item
OPTIONAL MATCH (t:ConversationThread {id: item.thread_id, client_id: $client_id})
OPTIONAL MATCH (e:ConversationEvent {
  client_id: $client_id, thread_id: item.thread_id, external_ref: item.external_ref})
RETURN item.thread_id AS thread_id, item.external_ref AS external_ref,
       t IS NOT NULL AS found, e IS NOT NULL AS appended
"""
# Threads are locked in id order (no deadlock between two requests). Under its lock, each
# thread's events already stored under the requested refs are found, the times of its last
# `window` events read (the hot-thread rule), and the new events created with the next
# sequence numbers, with the thread's counters (and its expiry slid: app/domain/expiry), in
# one query.
APPEND = f"""
UNWIND $threads AS th
MATCH (t:ConversationThread {{id: th.id, client_id: $client_id}})
{lock("t")}
WITH t, th, t.event_count AS base
CALL (t, th) {{
  UNWIND th.events AS ev
  OPTIONAL MATCH (old:ConversationEvent {{
    client_id: $client_id, thread_id: t.id, external_ref: ev.external_ref}})
  RETURN collect(CASE WHEN old IS NULL THEN ev END) AS fresh, collect(old {{.*}}) AS existing
}}
CALL (t, base) {{
  MATCH (r:ConversationEvent {{thread_id: t.id}})
  WHERE base - $window < r.sequence <= base AND r.client_id = $client_id
  WITH r ORDER BY r.sequence
  RETURN collect(r.created_at) AS recent
}}
CALL (t, base, fresh) {{
  UNWIND range(0, size(fresh) - 1) AS i
  CREATE (t)-[:HAS_EVENT]->(e:ConversationEvent)
  SET e = fresh[i], e.sequence = base + i + 1, e.platform = t.platform
  RETURN collect(e {{.id, .external_ref, .sequence, .created_at}}) AS created
}}
WITH t, existing, recent, created
SET t.event_count = t.event_count + size(created),
    t.events_since_summary = t.events_since_summary + size(created),
    t.last_event_at = reduce(last = t.last_event_at, e IN created |
      CASE WHEN last IS NULL OR e.created_at > last THEN e.created_at ELSE last END),
    t.updated_at = CASE WHEN size(created) > 0 THEN $now ELSE t.updated_at END,
    t.expires_at = CASE WHEN size(created) > 0 AND t.ttl_seconds IS NOT NULL
                        THEN $now + duration({{seconds: t.ttl_seconds}}) ELSE t.expires_at END
RETURN t {{.*}} AS thread, existing, recent, created
"""
FLAG = """
UNWIND $threads AS up
MATCH (t:ConversationThread {id: up.id, client_id: $client_id})
SET t += up.changes
"""


@dataclass(frozen=True)
class EventWrite:
    event: dict[str, Any]
    duplicate: bool


async def append_events(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    policy: ConversationPolicy,
    items: list[dict[str, Any]],
) -> list[EventWrite]:
    """Append 1-500 events (to one or more of the caller's threads) in one transaction; results
    in input order. An external_ref the thread already has, or one repeated earlier in the
    batch, returns that event with duplicate=True and writes nothing."""
    principal.require_writer()
    if not 1 <= len(items) <= MAX_BATCH:
        raise ValidationFailed(f"append 1-{MAX_BATCH} events per request", field="events")
    events = [pending_event(item) for item in items]

    async def work(tx: Tx) -> list[EventWrite]:
        return await _append(tx, principal, policy, events)

    # Text and media are stored at their hash (a retried event's node may point at them).
    async with staged_uploads(artifacts, principal, shared=True):
        if any(event.needs_storage(policy.inline_text_max) for event in events):
            appended = await _precheck(graph, principal, events)
            events = await store_all(
                artifacts,
                principal=principal,
                events=events,
                skip=appended,
                inline_max=policy.inline_text_max,
            )
        try:
            return await graph.in_transaction(work)
        except ConstraintError:
            # Only a writer that bypasses the thread lock can get here; the retry sees its event.
            return await graph.in_transaction(work)


async def append_event(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    policy: ConversationPolicy,
    item: dict[str, Any],
) -> EventWrite:
    written = await append_events(
        graph, artifacts, principal=principal, policy=policy, items=[item]
    )
    return written[0]


def event_record(row: Any) -> dict[str, Any]:
    return decoded(plain(row), EVENT_JSON)


async def _precheck(
    graph: GraphExecutor, principal: Principal, events: list[PendingEvent]
) -> set[tuple[str, str]]:
    """NOT_FOUND (before any upload) for a thread that is not the caller's; the keys of the
    events already appended."""
    items = [{"thread_id": e.thread_id, "external_ref": e.key[1]} for e in events]
    rows = await graph.read(PRECHECK, {"items": items, "client_id": principal.client_id})
    for row in rows:
        if not row["found"]:
            raise missing("thread", row["thread_id"])
    return {(row["thread_id"], row["external_ref"]) for row in rows if row["appended"]}


def _note_appended(
    client_id: str, rows: list[dict[str, Any]], updates: list[dict[str, Any]]
) -> None:
    """Each new event, and each thread it changed (counters, expiry, the summary queue). Only
    repeats: nothing changed but the threads' lock."""
    threads = {up["id"] for up in updates}
    for row in rows:
        thread_id = row["thread"]["id"]
        for event in row["created"]:
            threads.add(thread_id)
            created = ChangeAction.CREATED
            note_change(client_id, "ConversationEvent", event["id"], created, parent_id=thread_id)
    for thread_id in sorted(threads):
        note_change(client_id, "ConversationThread", thread_id, ChangeAction.UPDATED)
    if not threads:
        unrecorded()


async def _append(
    tx: Tx, principal: Principal, policy: ConversationPolicy, events: list[PendingEvent]
) -> list[EventWrite]:
    now = datetime.now(UTC)
    prepared = prepare(principal, events, now=now)
    params = {"client_id": principal.client_id, "now": now}
    rows = [
        plain(row)
        for row in await tx.run(
            APPEND, params | {"threads": prepared.threads(), "window": policy.hot_events - 1}
        )
    ]
    found = {row["thread"]["id"] for row in rows}
    for event in events:
        if event.thread_id not in found:
            raise missing("thread", event.thread_id)
    updates = queue_updates(rows, policy=policy, now=now)
    if updates:
        await tx.run(FLAG, params | {"threads": updates})
    _note_appended(principal.client_id, rows, updates)
    return [
        EventWrite(decoded(record, EVENT_JSON), duplicate)
        for record, duplicate in outcome(prepared, rows)
    ]
