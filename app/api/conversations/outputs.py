"""What conversation mutations return besides the read types (app/api/types/conversations)."""

from __future__ import annotations

import strawberry

from app.api.types.conversations import ConversationEvent, ConversationThread, ThreadSummary


@strawberry.type(description="The created thread, or the existing one for its external ref.")
class CreateConversationThreadPayload:
    thread: ConversationThread
    created: bool = strawberry.field(
        description="False when the client already had this platform thread; it is returned."
    )


@strawberry.type(description="The appended event, or the existing one for its external ref.")
class AppendConversationEventPayload:
    event: ConversationEvent
    duplicate: bool = strawberry.field(
        description="True when the thread already had an event with this externalRef (a "
        "retry): that event is returned and nothing is written."
    )


@strawberry.type(description="One result per input event, in input order.")
class AppendConversationEventsPayload:
    results: list[AppendConversationEventPayload]
    appended: int
    duplicates: int


@strawberry.type(description="The new summary version and the thread that now shows it.")
class ThreadSummaryPayload:
    summary: ThreadSummary
    thread: ConversationThread
