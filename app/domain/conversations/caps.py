"""A conversation's cap and time to live (seed 002): capConversation keeps a thread's last N
events, purging the older ones (and the stored objects only they pointed at) in the same
transaction that sets the cap, which the sweeper then holds the thread to; setConversationTtl
gives it a new time to live from now."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain import expiry
from app.domain.conversations.repository import THREAD, thread_record, thread_scope
from app.domain.expiry.cypher import TRIM_EVENTS
from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import missing
from app.graph.change_feed import Changed
from app.graph.executor import GraphExecutor
from app.graph.fragments import lock
from app.model.enums import ChangeAction

CAP = f"""
MATCH (t:ConversationThread {{id: $id, client_id: $client_id}})
{lock("t")}
SET t.max_events = $max_events, t.updated_at = $now
{TRIM_EVENTS}
RETURN t {{.*}} AS thread, trimmed, event_ids, uris
"""


@dataclass(frozen=True)
class Capped:
    thread: dict[str, Any]
    trimmed_events: int
    objects_removed: int


async def cap_conversation(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    thread_id: str,
    keep_last: int,
) -> Capped:
    """Keep the thread's last `keep_last` events from now on (0: every event, uncapped)."""
    principal.require_writer()
    scope = thread_scope(principal, thread_id, field="thread_id")
    keep = expiry.check_cap(keep_last, field="keep_last")
    if keep is None:
        raise ValidationFailed("keep_last is required (0: keep every event)", field="keep_last")
    params = scope | {"max_events": keep or None, "now": datetime.now(UTC)}
    rows = await graph.write(CAP, params, changed=lambda rows: capped(principal, rows))
    if not rows:
        raise missing("thread", scope["id"])
    row = rows[0]
    removed = await expiry.remove_thread_objects(
        graph, artifacts, principal.client_id, list(row["uris"])
    )
    return Capped(thread_record(row["thread"]), int(row["trimmed"]), removed)


def capped(principal: Principal, rows: list[dict[str, Any]]) -> list[Changed]:
    """The thread's cap changed, and its events beyond it are gone."""
    client_id, changes = principal.client_id, []
    for row in rows:
        thread_id = row["thread"]["id"]
        changes.append(Changed(client_id, "ConversationThread", thread_id, ChangeAction.UPDATED))
        changes += [
            Changed(
                client_id, "ConversationEvent", event_id, ChangeAction.DELETED, parent_id=thread_id
            )
            for event_id in row["event_ids"]
        ]
    return changes


async def set_thread_ttl(
    graph: GraphExecutor, *, principal: Principal, thread_id: str, ttl_seconds: int
) -> dict[str, Any]:
    """The thread expires ttl_seconds after now (and after each later append); 0: never."""
    principal.require_writer()
    scope = thread_scope(principal, thread_id, field="thread_id")
    changes = expiry.ttl_changes(ttl_seconds, datetime.now(UTC))
    return thread_record(await THREAD.locked_change(graph, scope, lambda _: changes))
