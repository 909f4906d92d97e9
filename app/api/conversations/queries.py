"""Conversation reads beyond the generic ones: the summary queue, events in sequence order and
an event's full text (summaries are the default; raw events only when asked)."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.resolve import run
from app.api.types.conversations import ConversationEvent, ConversationThread
from app.domain import conversations


@strawberry.type
class ConversationQueries:
    @strawberry.field(
        description="Threads that need a summary (every N events, hot, or requested), "
        "longest waiting first."
    )
    async def threads_needing_summary(
        self, info: Info, first: int = 20
    ) -> list[ConversationThread]:
        records = await run(info, conversations.summary_queue, first=first)
        return [ConversationThread.from_row(record) for record in records]

    @strawberry.field(
        description="A thread's events in sequence order, after afterSequence (raw context)."
    )
    async def thread_events(
        self, info: Info, thread_id: strawberry.ID, after_sequence: int = 0, first: int = 50
    ) -> list[ConversationEvent]:
        _, events = await run(
            info,
            conversations.thread_events,
            thread_id=thread_id,
            after_sequence=after_sequence,
            first=first,
        )
        return [ConversationEvent.from_row(event) for event in events]

    @strawberry.field(
        description="The full text of an event: inline, or read from object storage (checked "
        "against textSha256) when it was too long to keep inline."
    )
    async def conversation_event_text(self, info: Info, id: strawberry.ID) -> str | None:
        return await run(info, conversations.event_text, event_id=id)
