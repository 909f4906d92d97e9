"""`changes(after:)`: the caller's change feed, a page at a time."""

from __future__ import annotations

import strawberry

from app.api.changes.outputs import ChangePage, RecordType
from app.api.context import Info
from app.api.resolve import run
from app.domain import changes


@strawberry.type
class ChangeQueries:
    @strawberry.field(
        description="What was written, oldest first: every mutation's and background job's "
        "changes to the caller's records, after `after` (a cursor from an earlier page or "
        'change; "0" or none: the oldest kept). A cursor never skips or repeats a change. '
        "Kept for the retention (AGENTMEM_CHANGE_RETENTION_DAYS); an older cursor is refused "
        "with CURSOR_EXPIRED. `types`: only changes of these record types; `first`: 1-200."
    )
    async def changes(
        self,
        info: Info,
        after: str | None = None,
        types: list[RecordType] | None = None,
        first: int = 50,
    ) -> ChangePage:
        names = None if types is None else [t.value for t in types]
        page = await run(info, changes.changes_after, after=after, types=names, first=first)
        return ChangePage.of(page)

    @strawberry.field(
        description="The feed's current position: `changes(after:)` or a subscription's "
        "`after` given it delivers exactly what is written from now on (read it before what "
        "you show, then subscribe after it, and nothing falls in between)."
    )
    async def changes_head(self, info: Info) -> str:
        head, _ = await run(info, changes.feed_position)
        return str(head)
