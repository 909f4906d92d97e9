"""Conversation memory types (seed 000, 5); fields from app/model."""

from __future__ import annotations

from app.api.types.base import NodeType, node_type


@node_type("ConversationThread", "A logical conversation on a platform (seed 000, 5.2).")
class ConversationThread(NodeType): ...


@node_type("ConversationEvent", "One inbound or outbound message (seed 000, 5.3).")
class ConversationEvent(NodeType): ...


@node_type("ThreadSummary", "One version of a thread summary, with who wrote it.")
class ThreadSummary(NodeType): ...
