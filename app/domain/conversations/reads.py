"""Raw conversation reads, for when a summary is not enough: a thread's events in sequence
order and an event's full text, hydrated from object storage when it was stored there."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.conversations.events import event_record
from app.domain.conversations.repository import thread_record, thread_scope
from app.domain.kernel.pagination import check_page_size
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import OwnedNode, missing
from app.graph.executor import GraphExecutor

UTF8_MAX_BYTES = 4
EVENT = OwnedNode("ConversationEvent", "event", what="event")
# Events in sequence order after `after`, or the last `last` events when $last is set.
THREAD_EVENTS = """
MATCH (t:ConversationThread {id: $id, client_id: $client_id})
CALL (t) {
  WITH t, CASE WHEN $last IS NULL THEN $after ELSE t.event_count - $last END AS floor
  MATCH (e:ConversationEvent {thread_id: t.id})
  WHERE e.sequence > floor AND e.client_id = $client_id
  WITH e ORDER BY e.sequence LIMIT $limit
  RETURN collect(e {.*}) AS events
}
RETURN t {.*} AS thread, events
"""


class ChecksumMismatch(RuntimeError):
    """Stored text that no longer matches its recorded SHA-256 (an incident, not an answer)."""


async def thread_events(
    graph: GraphExecutor,
    *,
    principal: Principal,
    thread_id: str,
    after_sequence: int = 0,
    first: int = 50,
    last: int | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The thread and its events with sequence > after_sequence, oldest first (`last`: only
    among its last `last` events)."""
    scope = thread_scope(principal, thread_id, field="thread_id")
    params: dict[str, Any] = scope | {
        "after": max(0, after_sequence),
        "limit": check_page_size(first) if last is None else last,
        "last": last,
    }
    rows = await graph.read(THREAD_EVENTS, params)
    if not rows:
        raise missing("thread", scope["id"])
    return thread_record(rows[0]["thread"]), [event_record(e) for e in rows[0]["events"]]


async def get_event(graph: GraphExecutor, *, principal: Principal, event_id: str) -> dict[str, Any]:
    return event_record(await EVENT.read(graph, EVENT.scope(principal, event_id)))


async def event_text(
    graph: GraphExecutor, artifacts: ArtifactStore, *, principal: Principal, event_id: str
) -> str | None:
    """The full text of an event: inline, or read back from object storage and checked."""
    event = await get_event(graph, principal=principal, event_id=event_id)
    return await hydrated_text(artifacts, principal=principal, event=event)


async def hydrated_text(
    artifacts: ArtifactStore, *, principal: Principal, event: dict[str, Any]
) -> str | None:
    uri = event.get("text_uri")
    if not uri:
        return event.get("text")
    data = await artifacts.get(principal, str(uri))
    if hashlib.sha256(data).hexdigest() != event.get("text_sha256"):
        raise ChecksumMismatch(f"text of event {event['id']} does not match its sha256")
    return data.decode("utf-8")


async def text_start(
    artifacts: ArtifactStore, *, principal: Principal, event: dict[str, Any], chars: int
) -> str | None:
    """The first `chars` characters of an event's text (or fewer: a character cut at the end
    is left out). Only the start is read from object storage, so it cannot be checked against
    the whole text's sha256: for what reads a prefix only (the extractive summarizer)."""
    uri = event.get("text_uri")
    if not uri:
        text = event.get("text")
        return None if text is None else str(text)[:chars]
    data = await artifacts.get(principal, str(uri), prefix=chars * UTF8_MAX_BYTES)
    return data.decode("utf-8", errors="ignore")[:chars]


async def hydrate_all(
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    events: list[dict[str, Any]],
    chars: int,
) -> list[dict[str, Any]]:
    """The events with `text` set to the first `chars` characters of their text (object
    storage read 8 at a time)."""
    limit = asyncio.Semaphore(8)

    async def one(event: dict[str, Any]) -> dict[str, Any]:
        if not event.get("text_uri"):
            return event
        async with limit:
            text = await text_start(artifacts, principal=principal, event=event, chars=chars)
        return event | {"text": text}

    return list(await asyncio.gather(*(one(event) for event in events)))
