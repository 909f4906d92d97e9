"""Conversation mutations: thin resolvers over app/domain/conversations (threads, events,
summaries); each is one transaction, validated before it writes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import strawberry

from app.api.context import Info
from app.api.conversations import inputs as i
from app.api.conversations import outputs as o
from app.api.expiry.policy import lifetimes
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.record_mutations import creates, transitions, updates
from app.api.resolve import run, write, write_payload
from app.api.types.conversations import ConversationEvent, ConversationThread
from app.domain import conversations
from app.domain.conversations import ConversationPolicy
from app.model.enums import HandoffState, ThreadStatus


def _policy(info: Info) -> ConversationPolicy:
    return ConversationPolicy.from_settings(info.context.services.settings)


async def _summary_write(
    info: Info, action: Callable[..., Awaitable[Any]], **arguments: Any
) -> o.ThreadSummaryPayload:
    """A summary version written under the conversation policy: the summary and its thread."""
    payload = o.ThreadSummaryPayload
    return await write_payload(info, action, payload, policy=_policy(info), **arguments)


@strawberry.type
class ConversationMutations:
    create_conversation_thread = creates(
        conversations.create_thread,
        o.CreateConversationThreadPayload,
        i.CreateConversationThreadInput,
        "Create an open thread; idempotent per (platform, externalThreadRef).",
        keyed=False,
        policy=lifetimes,
    )

    update_conversation_thread = updates(
        conversations.update_thread,
        ConversationThread,
        i.UpdateConversationThreadInput,
        "Change the participant, safety flags or open questions.",
        id_name="thread_id",
    )
    transition_conversation_thread = transitions(
        conversations.transition_thread,
        ConversationThread,
        ThreadStatus,
        "Move a thread's status (open -> dormant|escalated|closed, dormant -> "
        "open|closed, escalated -> open|closed, closed -> open). ESCALATED sets handoffState "
        "AWAITING_HUMAN; reopening clears a COMPLETED handoff and is refused while a human is "
        "awaited. INVALID_TRANSITION otherwise.",
        id_name="thread_id",
    )
    transition_thread_handoff = transitions(
        conversations.transition_handoff,
        ConversationThread,
        HandoffState,
        "Mark a human handoff done (AWAITING_HUMAN -> COMPLETED); the other moves "
        "follow from escalating and reopening the thread.",
        id_name="thread_id",
    )

    @strawberry.mutation(
        description="Append an event to a thread (next sequence number); a retry with the same "
        "externalRef returns the stored event with duplicate: true."
    )
    async def append_conversation_event(
        self, info: Info, input: i.AppendConversationEventInput
    ) -> o.AppendConversationEventPayload:
        item = i.event_item(input)
        return await write_payload(
            info,
            conversations.append_event,
            o.AppendConversationEventPayload,
            policy=_policy(info),
            item=item,
        )

    @strawberry.mutation(
        description="Append up to 500 events (to one or more threads) in one transaction, all "
        "or nothing; idempotent per externalRef like appendConversationEvent."
    )
    async def append_conversation_events(
        self, info: Info, events: list[i.AppendConversationEventInput]
    ) -> o.AppendConversationEventsPayload:
        items = [i.event_item(event) for event in events]
        written = await run(info, conversations.append_events, policy=_policy(info), items=items)
        results = [
            o.AppendConversationEventPayload(
                event=ConversationEvent.from_row(w.event), duplicate=w.duplicate
            )
            for w in written
        ]
        duplicates = sum(1 for w in written if w.duplicate)
        return o.AppendConversationEventsPayload(
            results=results, appended=len(written) - duplicates, duplicates=duplicates
        )

    @strawberry.mutation(description="Put a thread on the summary queue (reason 'requested').")
    async def request_thread_summary(
        self, info: Info, thread_id: strawberry.ID
    ) -> ConversationThread:
        return await write(
            info, conversations.request_summary, ConversationThread, thread_id=thread_id
        )

    @strawberry.mutation(
        description="Store a new summary version (method 'agent'); the thread shows it and "
        "leaves the summary queue. eventsCovered defaults to all events; openQuestions, when "
        "given, replaces the thread's. The long summary goes to object storage."
    )
    @idempotent
    async def write_thread_summary(
        self,
        info: Info,
        thread_id: strawberry.ID,
        summary_short: str,
        summary_long: str | None = None,
        open_questions: list[str] | None = None,
        events_covered: int | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> o.ThreadSummaryPayload:
        return await _summary_write(
            info,
            conversations.write_summary,
            thread_id=thread_id,
            summary_short=summary_short,
            summary_long=summary_long,
            open_questions=open_questions,
            events_covered=events_covered,
        )

    @strawberry.mutation(
        description="Summarize the thread's last 200 events with the built-in extractive "
        "summarizer (no LLM) and store it as a version with method 'extractive'."
    )
    @idempotent
    async def summarize_thread(
        self, info: Info, thread_id: strawberry.ID, idempotency_key: IdempotencyKey = None
    ) -> o.ThreadSummaryPayload:
        return await _summary_write(info, conversations.summarize_thread, thread_id=thread_id)
