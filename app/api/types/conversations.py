"""Conversation memory types (seed 000, 5); fields from app/model."""

from __future__ import annotations

from datetime import datetime

import strawberry

from app.api.types.base import NodeType, node_type


@node_type("ConversationThread", "A logical conversation on a platform (seed 000, 5.2).")
class ConversationThread(NodeType):
    ttl_seconds: int | None = strawberry.field(
        description="Seconds it lives after its last appended event (null: never expires)."
    )
    expires_at: datetime | None = strawberry.field(
        description="When the sweeper purges it with its events, unless an event comes first."
    )
    max_events: int | None = strawberry.field(
        description="Its cap: only its last maxEvents events are kept (null: all)."
    )
    trimmed_through: int | None = strawberry.field(
        description="Events up to this sequence were purged by the cap."
    )


@node_type("ConversationEvent", "One inbound or outbound message (seed 000, 5.3).")
class ConversationEvent(NodeType): ...


@node_type("ThreadSummary", "One version of a thread summary, with who wrote it.")
class ThreadSummary(NodeType): ...
