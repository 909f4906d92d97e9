"""Expiry mutations (seed 002): a conversation's cap and TTL, a session's TTL; thin resolvers
over app/domain/conversations/caps.py and app/domain/sessions/ttl.py."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.expiry.outputs import CapConversationPayload
from app.api.resolve import write, write_payload
from app.api.types.conversations import ConversationThread
from app.api.types.sessions import MemorySession
from app.domain import conversations, sessions


@strawberry.type
class ExpiryMutations:
    @strawberry.mutation(
        description="Keep only the thread's last keepLast events (0: every event, uncapped): "
        "the older ones are purged now, in one transaction with the cap, and the memory "
        "sweeper purges those that later appends push past it."
    )
    async def cap_conversation(
        self, info: Info, thread_id: strawberry.ID, keep_last: int
    ) -> CapConversationPayload:
        return await write_payload(
            info,
            conversations.cap_conversation,
            CapConversationPayload,
            thread_id=thread_id,
            keep_last=keep_last,
        )

    @strawberry.mutation(
        description="The thread expires ttlSeconds from now, slid forward by each append "
        "(0: never); the memory sweeper then purges it with its events and summaries."
    )
    async def set_conversation_ttl(
        self, info: Info, thread_id: strawberry.ID, ttl_seconds: int
    ) -> ConversationThread:
        return await write(
            info,
            conversations.set_thread_ttl,
            ConversationThread,
            thread_id=thread_id,
            ttl_seconds=ttl_seconds,
        )

    @strawberry.mutation(
        description="The session expires ttlSeconds from now, slid forward by each entry "
        "(0: never); entryTtlSeconds, when given, is the TTL of the entries put after (0: "
        "never). The memory sweeper purges an expired session with its entries."
    )
    async def set_session_ttl(
        self,
        info: Info,
        session_id: strawberry.ID,
        ttl_seconds: int,
        entry_ttl_seconds: int | None = None,
    ) -> MemorySession:
        return await write(
            info,
            sessions.set_session_ttl,
            MemorySession,
            session_id=session_id,
            ttl_seconds=ttl_seconds,
            entry_ttl_seconds=entry_ttl_seconds,
        )
