"""Reading the change feed (app/graph/change_feed.py writes it): a client's changes after a
cursor, in position order, and the retention step of the memory sweeper.

A cursor is a position as text ("0": from the start). Positions are given out and committed in
order per client, so a page after a cursor skips and repeats nothing. A cursor older than what
retention purged is refused (CURSOR_EXPIRED) instead of silently skipping what was deleted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.domain.kernel.errors import CursorExpired, ValidationFailed
from app.domain.kernel.pagination import check_page_size
from app.domain.kernel.principal import Principal
from app.domain.memory.sweep_steps import PastRetention
from app.graph.executor import GraphExecutor
from app.graph.identifiers import Label
from app.graph.values import plain

KIND = "changes"  # the retention step's count in the sweep's `expired` counts
FEED = """
OPTIONAL MATCH (f:ChangeFeed {client_id: $client_id})
RETURN coalesce(f.position, 0) AS position, coalesce(f.purged_through, 0) AS purged_through
"""
# The feed's head read first: every position up to it has committed, so the changes read after
# it up to it are all there is, whatever commits meanwhile. The changes seek the
# (client_id, position) uniqueness index (migration 0037).
CHANGES_AFTER = """
OPTIONAL MATCH (f:ChangeFeed {client_id: $client_id})
WITH coalesce(f.position, 0) AS head, coalesce(f.purged_through, 0) AS purged_through
WITH head, purged_through, coalesce($after, purged_through) AS after
CALL (head, after) {
  MATCH (c:Change)
  WHERE c.client_id = $client_id AND after < c.position <= head
    AND ($types IS NULL OR c.record_type IN $types)
    AND ($parent_id IS NULL OR c.parent_id = $parent_id)
  WITH c ORDER BY c.position LIMIT $first
  RETURN collect(c {.*}) AS changes
}
RETURN head, purged_through, after, changes
"""
# The feed node remembers the last position purged, so a cursor before it can be told apart
# from one that simply has nothing newer.
PURGE_OLD_CHANGES = """
MATCH (c:Change)
WHERE c.at < $before AND ($client_id IS NULL OR c.client_id = $client_id)
WITH c LIMIT $batch
WITH c.client_id AS client_id, collect(c) AS old, max(c.position) AS last
MATCH (f:ChangeFeed {client_id: client_id})
SET f.purged_through = CASE WHEN last > f.purged_through THEN last ELSE f.purged_through END
FOREACH (c IN old | DELETE c)
RETURN client_id, size(old) AS purged
"""


@dataclass(frozen=True)
class ChangePage:
    changes: list[dict[str, Any]]
    # The cursor to ask after next: the last change's when more may follow, else the feed's
    # position when read (nothing at or below it can commit later), so a filtered follower
    # does not read the same stretch again.
    end_cursor: str
    has_more: bool


def parse_cursor(cursor: str | None, *, field: str = "after") -> int | None:
    if cursor is None:
        return None
    if not cursor.isdigit() or len(cursor) > 18:
        raise ValidationFailed(
            f'{field}: not a change cursor (a cursor this API returned, or "0" for the start)',
            field=field,
        )
    return int(cursor)


def record_types(types: list[str] | None) -> list[str] | None:
    return None if types is None else [Label(name).value for name in types]


async def feed_position(graph: GraphExecutor, *, principal: Principal) -> tuple[int, int]:
    """The client's last position, and the last one retention purged."""
    row = plain((await graph.read_latest(FEED, {"client_id": principal.client_id}))[0])
    return int(row["position"]), int(row["purged_through"])


async def changes_after(
    graph: GraphExecutor,
    *,
    principal: Principal,
    after: str | None,
    types: list[str] | None = None,
    parent_id: str | None = None,
    first: int = 50,
) -> ChangePage:
    """Up to `first` of the client's changes after the cursor (None: the oldest kept)."""
    check_page_size(first)
    params = {
        "client_id": principal.client_id,
        "after": parse_cursor(after),
        "types": record_types(types),
        "parent_id": parent_id,
        "first": first + 1,
    }
    row = plain((await graph.read_latest(CHANGES_AFTER, params))[0])
    head, purged_through, position = (int(row[k]) for k in ("head", "purged_through", "after"))
    if position < purged_through:
        raise CursorExpired(
            f"after: cursor {after} is older than the change feed keeps (changes through "
            f"{purged_through} were purged); start again from a recent cursor or without one",
            after=after,
            purged_through=str(purged_through),
        )
    rows = [dict(change) for change in row["changes"]]
    page, has_more = rows[:first], len(rows) > first
    end = page[-1]["position"] if has_more else max(head, position)
    return ChangePage(changes=page, end_cursor=str(end), has_more=has_more)


class ChangeFeedRetention(PastRetention):
    """A sweep step: changes older than the retention deleted (0 days: kept for ever)."""

    query = PURGE_OLD_CHANGES
    kind = KIND
