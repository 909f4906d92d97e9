"""The change feed: every write records what it changed in the same transaction as the change.

A write notes each record it creates, updates or deletes (`note_change`, on the transaction it
runs in); the executor appends the notes to the feed as the transaction's last statement
(APPEND_CHANGES, app/graph/transactions.py). A write that keeps only books says so
(`unrecorded`, or `changed=BOOKKEEPING` on a one-query write).

Each client has one `ChangeFeed` node holding its last position: the statement takes that
node's write lock before reading it and holds it until the commit, so a client's positions are
given out and committed in one order. A reader paging by position never sees a position before
the ones under it have committed, so a cursor skips and repeats nothing, whatever process
wrote. A rolled-back transaction gives back its positions (nothing of it stays).

Who acted comes from `acting(...)`: the GraphQL resolver names the mutation and the caller's
key and agent, background jobs their own name. The feed holds ids and types only, never a
record's content, so erasing a subject leaves nothing of it here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from app.graph.fragments import lock
from app.graph.identifiers import Label
from app.model.enums import ChangeAction

# Off (Settings.change_feed false: only to measure what the feed costs) nothing is recorded.
RECORDING = True
# Tests set it: a write transaction that changed the graph for an actor and noted nothing then
# fails, so a write missing its feed entry shows in the suite. Only then does a transaction
# read its queries' counters (Tx.run).
STRICT = False
SYSTEM = "system"

APPEND_CHANGES = f"""
UNWIND $feeds AS feed
MERGE (f:ChangeFeed {{client_id: feed.client_id}})
ON CREATE SET f.position = 0, f.purged_through = 0
WITH f, feed
{lock("f")}
WITH f, feed, f.position AS base
SET f.position = base + size(feed.changes)
WITH f, feed, base
UNWIND range(0, size(feed.changes) - 1) AS i
CREATE (c:Change)
SET c = feed.changes[i], c.client_id = f.client_id, c.position = base + i + 1,
    c.at = datetime(), c.operation = $operation, c.key_id = $key_id, c.agent = $agent
RETURN DISTINCT f.client_id AS client_id, f.position AS position
"""


@dataclass(frozen=True)
class Actor:
    """Who writes: the operation (a mutation's field name, a job's name) and the caller's key
    and agent (none for background jobs)."""

    operation: str
    key_id: str | None = None
    agent: str | None = None


@dataclass(frozen=True)
class Changed:
    """One change a write makes: `action` on a client's record; `parent_id`, the record it
    belongs to (a thread for its events), for subscribers that follow one parent."""

    client_id: str
    label: Label | str
    record_id: str
    action: ChangeAction
    parent_id: str | None = None

    def note(self) -> None:
        note_change(
            self.client_id, self.label, self.record_id, self.action, parent_id=self.parent_id
        )


# What a one-query write changed: fixed, or read from the query's rows (ids only they know).
ChangedBy = Sequence[Changed] | Callable[[list[dict[str, Any]]], Iterable[Changed]]


class _Bookkeeping(tuple[Changed, ...]):
    """No change an app follows (`unrecorded`), said where a one-query write is made."""


# `changed=BOOKKEEPING`: the write keeps books (access log, key use, purges of the feed).
BOOKKEEPING: ChangedBy = _Bookkeeping()


def note_all(changed: ChangedBy | None, rows: list[dict[str, Any]]) -> None:
    if changed is BOOKKEEPING:
        unrecorded()
        return
    for change in changed(rows) if callable(changed) else changed or ():
        change.note()


@dataclass
class PendingChanges:
    """The changes one transaction attempt noted, and whether it wrote anything at all."""

    changes: list[dict[str, Any]] = field(default_factory=list)
    wrote: bool = False
    exempt: bool = False

    def clear(self) -> None:
        self.changes.clear()
        self.wrote = self.exempt = False


_actor: ContextVar[Actor | None] = ContextVar("change_actor", default=None)
_pending: ContextVar[PendingChanges | None] = ContextVar("pending_changes", default=None)
_listeners: list[Callable[[dict[str, int]], None]] = []


@contextmanager
def acting(
    operation: str, *, key_id: str | None = None, agent: str | None = None
) -> Iterator[None]:
    """Writes inside are recorded as done by this actor."""
    token = _actor.set(Actor(operation, key_id, agent))
    try:
        yield
    finally:
        _actor.reset(token)


def current_actor() -> Actor | None:
    return _actor.get()


@contextmanager
def collecting(pending: PendingChanges) -> Iterator[PendingChanges]:
    token = _pending.set(pending)
    try:
        yield pending
    finally:
        _pending.reset(token)


def note_change(
    client_id: str,
    label: Label | str,
    record_id: str,
    action: ChangeAction,
    *,
    parent_id: str | None = None,
) -> None:
    """Record, in the write transaction the caller runs inside, that `action` happened to the
    record; `parent_id`: the record it belongs to (a thread for its events), for subscribers
    that follow one parent."""
    pending = _pending.get()
    if pending is None:
        raise RuntimeError("note_change outside a write transaction (graph.in_transaction)")
    pending.changes.append(
        {
            "client_id": client_id,
            "record_type": Label(label).value,
            "record_id": record_id,
            "action": ChangeAction(action).value,
            "parent_id": parent_id,
        }
    )


def unrecorded() -> None:
    """The transaction the caller runs inside writes only what no app follows (a replayed
    idempotent result's claim, access statistics): no feed entry is expected of it."""
    pending = _pending.get()
    if pending is not None:
        pending.exempt = True


def feed_parameters(pending: PendingChanges) -> dict[str, Any] | None:
    """APPEND_CHANGES's parameters for what `pending` noted (None when it noted nothing), the
    clients in a fixed order so that two transactions lock their feeds in the same order."""
    if not pending.changes:
        check_recorded(pending)
        return None
    if not RECORDING:
        return None
    by_client: dict[str, list[dict[str, Any]]] = {}
    for change in pending.changes:
        entry = {k: v for k, v in change.items() if k != "client_id" and v is not None}
        by_client.setdefault(change["client_id"], []).append(entry)
    actor = _actor.get() or Actor(SYSTEM)
    return {
        "feeds": [{"client_id": c, "changes": by_client[c]} for c in sorted(by_client)],
        "operation": actor.operation,
        "key_id": actor.key_id,
        "agent": actor.agent,
    }


def check_recorded(pending: PendingChanges) -> None:
    """In STRICT mode, a caller's write (one with a key: background jobs are not held to it)
    that changed the graph must have noted what it changed."""
    actor = _actor.get()
    if STRICT and pending.wrote and not pending.exempt and actor and actor.key_id is not None:
        raise AssertionError(f"a write of {actor} changed the graph and noted no change")


def on_commit(listener: Callable[[dict[str, int]], None]) -> None:
    """`listener` is told each client's last position after a transaction of this process
    appended to its feed and committed (subscribers here wake at once)."""
    _listeners.append(listener)


def remove_listener(listener: Callable[[dict[str, int]], None]) -> None:
    if listener in _listeners:
        _listeners.remove(listener)


def committed(positions: dict[str, int]) -> None:
    for listener in list(_listeners):
        listener(positions)
