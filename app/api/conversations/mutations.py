"""Conversation mutations: thin resolvers over app/domain/conversations (threads, events,
summaries); each is one transaction, validated before it writes."""

from __future__ import annotations

import dataclasses

import strawberry

from app.api.context import Info
from app.api.conversations import inputs as i
from app.api.conversations import outputs as o
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.inputs import given_fields
from app.api.read.nodes import load_written_at
from app.api.resolve import run, write
from app.api.types.conversations import ConversationEvent, ConversationThread, ThreadSummary
from app.domain import conversations
from app.domain.conversations import ConversationPolicy, SummaryWrite
from app.model.enums import HandoffState, ThreadStatus


def _policy(info: Info) -> ConversationPolicy:
    return ConversationPolicy.from_settings(info.context.services.settings)


async def _summary_payload(info: Info, written: SummaryWrite) -> o.ThreadSummaryPayload:
    return o.ThreadSummaryPayload(
        summary=await load_written_at(info, ThreadSummary, written.summary, "summary"),
        thread=await load_written_at(info, ConversationThread, written.thread, "thread"),
    )


@strawberry.type
class ConversationMutations:
    @strawberry.mutation(
        description="Create an open thread; idempotent per (platform, externalThreadRef)."
    )
    async def create_conversation_thread(
        self, info: Info, input: i.CreateConversationThreadInput
    ) -> o.CreateConversationThreadPayload:
        written = await run(info, conversations.create_thread, fields=dataclasses.asdict(input))
        thread = await load_written_at(info, ConversationThread, written.thread, "thread")
        return o.CreateConversationThreadPayload(thread=thread, created=written.created)

    @strawberry.mutation(description="Change the participant, safety flags or open questions.")
    async def update_conversation_thread(
        self, info: Info, id: strawberry.ID, input: i.UpdateConversationThreadInput
    ) -> ConversationThread:
        changes = given_fields(input)
        return await write(
            info, conversations.update_thread, ConversationThread, thread_id=id, changes=changes
        )

    @strawberry.mutation(
        description="Move a thread's status (open -> dormant|escalated|closed, dormant -> "
        "open|closed, escalated -> open|closed, closed -> open). ESCALATED sets handoffState "
        "AWAITING_HUMAN; reopening clears a COMPLETED handoff and is refused while a human is "
        "awaited. INVALID_TRANSITION otherwise."
    )
    async def transition_conversation_thread(
        self, info: Info, id: strawberry.ID, to: ThreadStatus
    ) -> ConversationThread:
        return await write(
            info, conversations.transition_thread, ConversationThread, thread_id=id, target=to
        )

    @strawberry.mutation(
        description="Mark a human handoff done (AWAITING_HUMAN -> COMPLETED); the other moves "
        "follow from escalating and reopening the thread."
    )
    async def transition_thread_handoff(
        self, info: Info, id: strawberry.ID, to: HandoffState
    ) -> ConversationThread:
        return await write(
            info, conversations.transition_handoff, ConversationThread, thread_id=id, target=to
        )

    @strawberry.mutation(
        description="Append an event to a thread (next sequence number); a retry with the same "
        "externalRef returns the stored event with duplicate: true."
    )
    async def append_conversation_event(
        self, info: Info, input: i.AppendConversationEventInput
    ) -> o.AppendConversationEventPayload:
        item = i.event_item(input)
        written = await run(info, conversations.append_event, policy=_policy(info), item=item)
        event = await load_written_at(info, ConversationEvent, written.event, "event")
        return o.AppendConversationEventPayload(event=event, duplicate=written.duplicate)

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
        written = await run(
            info,
            conversations.write_summary,
            policy=_policy(info),
            thread_id=thread_id,
            summary_short=summary_short,
            summary_long=summary_long,
            open_questions=open_questions,
            events_covered=events_covered,
        )
        return await _summary_payload(info, written)

    @strawberry.mutation(
        description="Summarize the thread's last 200 events with the built-in extractive "
        "summarizer (no LLM) and store it as a version with method 'extractive'."
    )
    @idempotent
    async def summarize_thread(
        self, info: Info, thread_id: strawberry.ID, idempotency_key: IdempotencyKey = None
    ) -> o.ThreadSummaryPayload:
        written = await run(
            info, conversations.summarize_thread, policy=_policy(info), thread_id=thread_id
        )
        return await _summary_payload(info, written)
