"""Conversation memory (seed 000, 5): threads, events (appended idempotently, large parts in
object storage), raw reads, and versioned summaries by agents or the built-in extractive
summarizer."""

from app.domain.conversations.caps import Capped, cap_conversation, set_thread_ttl
from app.domain.conversations.events import append_event, append_events
from app.domain.conversations.reads import event_text, thread_events
from app.domain.conversations.repository import (
    create_thread,
    transition_handoff,
    transition_thread,
    update_thread,
)
from app.domain.conversations.rules import ConversationPolicy
from app.domain.conversations.summaries import (
    SummaryWrite,
    request_summary,
    summarize_thread,
    summary_queue,
    write_summary,
)
from app.domain.conversations.summarizer import Message, summarize

__all__ = [
    "Capped",
    "ConversationPolicy",
    "Message",
    "SummaryWrite",
    "append_event",
    "append_events",
    "cap_conversation",
    "create_thread",
    "event_text",
    "request_summary",
    "set_thread_ttl",
    "summarize",
    "summarize_thread",
    "summary_queue",
    "thread_events",
    "transition_handoff",
    "transition_thread",
    "update_thread",
    "write_summary",
]
