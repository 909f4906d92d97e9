"""Subscriptions over the change feed (graphql-transport-ws at /graphql; the key in the
connection's init payload, app/api/read/ws_auth.py). Each follows the caller's feed in Neo4j from
a cursor (none: from now), so a change written by any API process arrives, and a subscriber that
reconnects with the last cursor it saw loses nothing. The typed ones are the feed filtered to the
records an app watches; every change can load its record (`record { ... on X { ... } }`)."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import strawberry

from app.api.changes.outputs import Change, RecordType
from app.api.context import Info
from app.domain import changes
from app.domain.kernel.ids import check_id

PAGE = 100
# A subscriber re-reads the feed at least this often, even without a wake-up.
MAX_WAIT_S = 15.0


async def follow(
    info: Info,
    after: str | None,
    types: list[str] | None = None,
    parent_id: str | None = None,
) -> AsyncGenerator[Change, None]:
    context = info.context
    principal = context.caller()
    graph, watcher = context.services.graph, context.services.feed
    changes.parse_cursor(after)
    cursor = after
    if cursor is None:
        cursor = str((await changes.feed_position(graph, principal=principal))[0])
    while True:
        page = await changes.changes_after(
            graph, principal=principal, after=cursor, types=types, parent_id=parent_id, first=PAGE
        )
        for row in page.changes:
            yield Change.from_row(row)
        cursor = page.end_cursor
        if not page.has_more:
            await watcher.wait_past(principal.client_id, int(cursor), timeout_s=MAX_WAIT_S)


def _names(types: list[RecordType] | None) -> list[str] | None:
    return None if types is None else [t.value for t in types]


@strawberry.type
class ChangeSubscriptions:
    @strawberry.subscription(
        description="Every change to the caller's records as it commits, after `after` (a "
        "cursor; none: from now). Reconnect with the last cursor received to miss nothing."
    )
    async def changes(
        self, info: Info, after: str | None = None, types: list[RecordType] | None = None
    ) -> AsyncGenerator[Change, None]:
        async for change in follow(info, after, _names(types)):
            yield change

    @strawberry.subscription(
        description="A conversation thread's new and changed events and summaries."
    )
    async def thread_activity(
        self, info: Info, thread_id: strawberry.ID, after: str | None = None
    ) -> AsyncGenerator[Change, None]:
        types = ["ConversationEvent", "ThreadSummary"]
        parent = check_id(str(thread_id), field="threadId")
        async for change in follow(info, after, types, parent):
            yield change

    @strawberry.subscription(description="Publish runs started and their status changes.")
    async def publish_runs(
        self, info: Info, after: str | None = None
    ) -> AsyncGenerator[Change, None]:
        async for change in follow(info, after, ["PublishRun"]):
            yield change

    @strawberry.subscription(
        description="Approvals requested and decided (a new one is waiting for a reviewer)."
    )
    async def approvals(self, info: Info, after: str | None = None) -> AsyncGenerator[Change, None]:
        async for change in follow(info, after, ["ApprovalRecord"]):
            yield change

    @strawberry.subscription(description="Agent episodes opened, changed and closed.")
    async def episodes(self, info: Info, after: str | None = None) -> AsyncGenerator[Change, None]:
        async for change in follow(info, after, ["AgentEpisode"]):
            yield change
