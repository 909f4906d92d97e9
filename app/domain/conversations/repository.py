"""ConversationThread repository (seed 000, 5.2): create (idempotent per platform thread),
update, status and handoff transitions. Every query is scoped by the caller's client."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.domain import expiry
from app.domain.conversations.fields import THREAD_JSON, new_thread_values, thread_values
from app.domain.conversations.rules import handoff_changes, status_changes
from app.domain.kernel.field_rules import decoded, enum_value, stored
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import OwnedNode
from app.graph.change_feed import Changed
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import ChangeAction, HandoffState, ThreadStatus

# The unique constraint on (client_id, platform, external_thread_ref) makes MERGE race-safe.
MERGE_THREAD = """
MERGE (t:ConversationThread {
  client_id: $client_id, platform: $platform, external_thread_ref: $external_thread_ref})
ON CREATE SET t += $props
RETURN t {.*} AS thread, t.id = $props.id AS created
"""
THREAD = OwnedNode("ConversationThread", "thread", what="thread")


@dataclass(frozen=True)
class ThreadWrite:
    thread: dict[str, Any]
    created: bool


def thread_record(row: Any) -> dict[str, Any]:
    """A thread as the API sees it: plain values, JSON fields decoded."""
    return decoded(plain(row), THREAD_JSON)


def thread_scope(principal: Principal, thread_id: str, *, field: str = "id") -> dict[str, Any]:
    return THREAD.scope(principal, thread_id, field=field)


async def locked_thread(tx: Tx, scope: dict[str, Any]) -> dict[str, Any]:
    """The thread, write-locked for the rest of the transaction (NOT_FOUND if not the caller's)."""
    return thread_record(await THREAD.locked(tx, scope))


async def changed_thread(
    tx: Tx, scope: dict[str, Any], changes: dict[str, Any], *, now: datetime | None = None
) -> dict[str, Any]:
    """The locked thread with `changes` written (updated_at `now`, else the current time)."""
    return thread_record(await THREAD.change(tx, scope, changes, now=now))


async def create_thread(
    graph: GraphExecutor,
    *,
    principal: Principal,
    fields: dict[str, Any],
    policy: expiry.Lifetimes = expiry.NO_LIFETIMES,
) -> ThreadWrite:
    """An open thread; a (platform, external_thread_ref) the client already has returns that
    thread unchanged, with created=False. Its TTL and cap: the call's ttl_seconds and
    max_events, else `policy`'s (app/domain/expiry)."""
    principal.require_writer()
    now = datetime.now(UTC)
    values = stored(new_thread_values(fields)) | expiry.thread_lifetime(fields, policy, now)
    props = {key: value for key, value in values.items() if value is not None} | {
        "id": new_id(),
        "status": ThreadStatus.OPEN.value,
        "handoff_state": HandoffState.NONE.value,
        "event_count": 0,
        "events_since_summary": 0,
        "summary_version": 0,
        "needs_summary": False,
        "created_at": now,
        "updated_at": now,
    }
    params = {
        "client_id": principal.client_id,
        "platform": values["platform"],
        "external_thread_ref": values["external_thread_ref"],
        "props": props,
    }
    created = Changed(principal.client_id, "ConversationThread", props["id"], ChangeAction.CREATED)
    rows = await graph.write(
        MERGE_THREAD, params, changed=lambda rows: [created] if rows[0]["created"] else []
    )
    return ThreadWrite(thread_record(rows[0]["thread"]), created=bool(rows[0]["created"]))


async def get_thread(
    graph: GraphExecutor, *, principal: Principal, thread_id: str
) -> dict[str, Any]:
    return thread_record(await THREAD.read(graph, thread_scope(principal, thread_id)))


async def update_thread(
    graph: GraphExecutor, *, principal: Principal, thread_id: str, changes: dict[str, Any]
) -> dict[str, Any]:
    """Change the participant, safety_flags (JSON object) or open_questions (JSON list of
    strings); a null clears one. Status and handoff change only through transitions."""
    principal.require_writer()
    values = thread_values(changes)
    scope = thread_scope(principal, thread_id)
    return thread_record(await THREAD.locked_change(graph, scope, lambda _: values))


async def transition_thread(
    graph: GraphExecutor, *, principal: Principal, thread_id: str, target: ThreadStatus
) -> dict[str, Any]:
    """Move a thread's status; escalating sets handoff awaiting_human in the same write."""
    principal.require_writer()
    goal = enum_value(ThreadStatus, target, field="status")
    scope = thread_scope(principal, thread_id)

    def move(current: dict[str, Any]) -> dict[str, Any]:
        handoff = HandoffState(current["handoff_state"])
        return status_changes(ThreadStatus(current["status"]), handoff, goal)

    return thread_record(await THREAD.locked_change(graph, scope, move))


async def transition_handoff(
    graph: GraphExecutor, *, principal: Principal, thread_id: str, target: HandoffState
) -> dict[str, Any]:
    """Mark a human handoff completed (awaiting_human -> completed)."""
    principal.require_writer()
    goal = enum_value(HandoffState, target, field="handoff_state")
    scope = thread_scope(principal, thread_id)

    def move(current: dict[str, Any]) -> dict[str, Any]:
        return handoff_changes(HandoffState(current["handoff_state"]), goal)

    return thread_record(await THREAD.locked_change(graph, scope, move))
