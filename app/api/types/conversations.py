"""Conversation memory types (seed 000, 5); fields held to app/model by tests."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from app.api.types.base import NodeType, node_type, to_many, to_one
from app.model.enums import (
    ConversationEventType,
    ConversationPlatform,
    EventDirection,
    HandoffState,
    ThreadStatus,
    ThreadType,
)


@node_type("ConversationThread")
@strawberry.type(description="A logical conversation on a platform (seed 000, 5.2).")
class ConversationThread(NodeType):
    id: strawberry.ID
    platform: ConversationPlatform
    thread_type: ThreadType
    external_thread_ref: str
    participant_external_ref: str | None
    status: ThreadStatus
    last_event_at: datetime | None
    safety_flags: JSON | None
    summary_short: str | None
    summary_long_uri: str | None
    open_questions: JSON | None
    handoff_state: HandoffState
    event_count: int
    events_since_summary: int
    summary_version: int
    needs_summary: bool
    needs_summary_reason: str | None
    needs_summary_since: datetime | None
    created_at: datetime
    updated_at: datetime

    events = to_many("ConversationEvent", "The thread's events (HAS_EVENT).")
    summaries = to_many("ThreadSummary", "Every summary version, kept (HAS_SUMMARY).")
    engagement = to_many("EngagementEvent", "Engagement events about the thread (CONCERNS).")


@node_type("ConversationEvent")
@strawberry.type(description="One inbound or outbound message (seed 000, 5.3).")
class ConversationEvent(NodeType):
    id: strawberry.ID
    thread_id: strawberry.ID
    platform: ConversationPlatform
    direction: EventDirection
    event_type: ConversationEventType
    external_ref: str
    sequence: int
    text: str | None
    text_uri: str | None
    text_sha256: str | None
    media_uris: list[str] | None
    metadata: JSON | None
    created_at: datetime
    updated_at: datetime

    thread = to_one("ConversationThread", "The thread it belongs to (HAS_EVENT).")


@node_type("ThreadSummary")
@strawberry.type(description="One version of a thread summary, with who wrote it.")
class ThreadSummary(NodeType):
    id: strawberry.ID
    thread_id: strawberry.ID
    version: int
    summary_short: str
    summary_long_uri: str | None
    author: str
    method: str
    events_covered: int
    created_at: datetime
    updated_at: datetime

    thread = to_one("ConversationThread", "The summarised thread (HAS_SUMMARY).")
