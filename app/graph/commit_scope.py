"""What became of a write, for work to undo unless it committed (the objects uploaded for the
nodes a write creates: app/artifacts/staged.py).

Three outcomes: committed; certainly not committed (the write failed before its commit was
sent, or was refused a connection); unknown (the connection failed, or the request's time ran
out, while the commit was on its way). A block opens a `WriteWatch`; the executor marks it when a
write inside failed with an unknown outcome, so the block can tell "undo" from "keep, and leave
it to reconciliation".

A block that ends inside an open write transaction (an idempotent create runs inside its key's
claim transaction, app/domain/kernel/idempotency.py) cannot know yet: it hands its `Undo` to the
transaction, which runs it when that certainly did not commit (also for each attempt the driver
retried) and marks it unresolved when the commit's fate is unknown.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Protocol

from app.graph.outages import never_sent


class Undo(Protocol):
    async def undo(self) -> None:
        """The write certainly did not commit."""

    def unresolved(self) -> None:
        """The write may or may not have committed."""


@dataclass
class WriteWatch:
    maybe_committed: bool = False


_watch: ContextVar[WriteWatch | None] = ContextVar("write_watch", default=None)


@contextmanager
def watch_writes() -> Iterator[WriteWatch]:
    watch = WriteWatch()
    token = _watch.set(watch)
    try:
        yield watch
    finally:
        _watch.reset(token)


def note_failed_write(error: BaseException, *, committing: bool) -> bool:
    """Called for a write that failed; `committing`: its commit may have been sent. Whether its
    outcome is unknown (also noted on the watching block, if any)."""
    unknown = committing and not never_sent(error)
    watch = _watch.get()
    if unknown and watch is not None:
        watch.maybe_committed = True
    return unknown


@dataclass
class OpenTransaction:
    """One write transaction of the executor, while it runs (with the driver's retries)."""

    committing: bool = False  # the current attempt's work is done: its commit is on the way
    _pending: list[Undo] = field(default_factory=list)

    def defer(self, undo: Undo) -> None:
        self._pending.append(undo)

    async def next_attempt(self) -> None:
        """A new attempt begins: the previous one (if any) rolled back, so undo what it left."""
        self.committing = False
        await self._undo_all()

    def committed(self) -> None:
        self._pending.clear()

    async def failed(self, error: BaseException) -> None:
        if note_failed_write(error, committing=self.committing):
            pending, self._pending = self._pending, []
            for undo in pending:
                undo.unresolved()
        else:
            await self._undo_all()

    async def _undo_all(self) -> None:
        pending, self._pending = self._pending, []
        for undo in pending:
            await undo.undo()


_open: ContextVar[OpenTransaction | None] = ContextVar("open_transaction", default=None)


@contextmanager
def opened(transaction: OpenTransaction) -> Iterator[OpenTransaction]:
    token = _open.set(transaction)
    try:
        yield transaction
    finally:
        _open.reset(token)


def open_transaction() -> OpenTransaction | None:
    """The write transaction the caller runs inside, if any."""
    return _open.get()
