"""How many bytes of object storage one request may read (Settings.request_read_max_bytes).

A list of 200 records whose content lives in object storage, asked for 30 times over with
aliases, would hold gigabytes in memory at once. Every read from object storage made while
answering a GraphQL request (record content, event and prompt text, session artifacts, ...:
all go through ArtifactStore.get) is charged to the request's budget before its bytes are
read; past the budget the read is refused with VALIDATION. The budget is opened with the
request's context (app/api/read/http_view.py) and shared by every resolver of the request (asyncio
copies the context, and so the budget object, into each task). Work outside a request (the
embedding worker, background jobs) has no budget.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

from app.domain.kernel.errors import ValidationFailed


@dataclass
class ReadBudget:
    limit: int
    used: int = 0

    def charge(self, size: int) -> None:
        if self.used + size > self.limit:
            raise ValidationFailed(
                f"this request would read more than {self.limit} bytes of stored content "
                "(record content, event or prompt text) from object storage; ask for fewer "
                "records or leave out content",
                field="content",
                limitBytes=self.limit,
            )
        self.used += size


_current: ContextVar[ReadBudget | None] = ContextVar("read_budget", default=None)


def open_read_budget(limit: int) -> ReadBudget:
    """Begin the current request's budget (task-local, as the round-trip count)."""
    budget = ReadBudget(limit)
    _current.set(budget)
    return budget


def charge_read(size: int) -> None:
    """Charge `size` bytes about to be read to the current request's budget, if any."""
    budget = _current.get()
    if budget is not None:
        budget.charge(size)
