"""What expiry answers: the counts of a sweep's expiry step, and of a conversation cap."""

from __future__ import annotations

from typing import Any

import strawberry

from app.api.types.conversations import ConversationThread


@strawberry.type(description="What the sweeper's expiry step purged (seed 002 TTLs and caps).")
class ExpiredCounts:
    sessions: int = strawberry.field(description="Expired sessions purged.")
    session_entries: int = strawberry.field(description="Entries purged with them.")
    threads: int = strawberry.field(description="Expired conversation threads purged.")
    thread_events: int = strawberry.field(description="Events purged with them.")
    trimmed_events: int = strawberry.field(
        description="Events of capped threads purged (older than their last maxEvents)."
    )


def expired_counts(counts: dict[str, Any]) -> ExpiredCounts:
    return ExpiredCounts(
        sessions=int(counts.get("sessions", 0)),
        session_entries=int(counts.get("session_entries", 0)),
        threads=int(counts.get("threads", 0)),
        thread_events=int(counts.get("thread_events", 0)),
        trimmed_events=int(counts.get("trimmed_events", 0)),
    )


@strawberry.type(description="A capped conversation: the thread and what the cap purged.")
class CapConversationPayload:
    thread: ConversationThread
    trimmed_events: int = strawberry.field(description="Events purged now (the oldest).")
    objects_removed: int = strawberry.field(
        description="Stored objects (long text, media) nothing else pointed at, removed."
    )
