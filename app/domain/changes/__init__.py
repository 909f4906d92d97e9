"""The change feed as apps read it: pages after a cursor, and its retention."""

from app.domain.changes.feed import (
    ChangeFeedRetention,
    ChangePage,
    changes_after,
    feed_position,
    parse_cursor,
)

__all__ = ["ChangeFeedRetention", "ChangePage", "changes_after", "feed_position", "parse_cursor"]
