"""Inputs of the conversation mutations; media bytes travel as base64 text."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

import strawberry
from strawberry.scalars import JSON

from app.api.assets.inputs import DEFAULT_CONTENT_TYPE, upload_bytes
from app.model.enums import (
    ConversationEventType,
    ConversationPlatform,
    EventDirection,
    ThreadType,
)


@strawberry.input(
    description="A thread the client already has on this platform (same externalThreadRef) "
    "is returned unchanged."
)
class CreateConversationThreadInput:
    platform: ConversationPlatform
    thread_type: ThreadType
    external_thread_ref: str
    participant_external_ref: str | None = None
    safety_flags: JSON | None = None
    open_questions: list[str] | None = None
    ttl_seconds: int | None = strawberry.field(
        default=None,
        description="Seconds the thread lives after its last appended event (0: never "
        "expires; default AGENTMEM_CONVERSATION_TTL_S); the sweeper then purges it.",
    )
    max_events: int | None = strawberry.field(
        default=None,
        description="Keep only the last this many events (0: all; default "
        "AGENTMEM_CONVERSATION_MAX_EVENTS); the sweeper purges older ones.",
    )


@strawberry.input(description="Only the fields given are changed; null clears one.")
class UpdateConversationThreadInput:
    participant_external_ref: str | None = strawberry.UNSET
    safety_flags: JSON | None = strawberry.UNSET
    open_questions: list[str] | None = strawberry.UNSET


@strawberry.input(description="Media bytes, stored in object storage before the event.")
class EventMediaInput:
    content_base64: str
    content_type: str = DEFAULT_CONTENT_TYPE


@strawberry.input(
    description="One inbound or outbound message. externalRef (the platform's message id) "
    "makes the append idempotent per thread. Text longer than the inline limit is stored in "
    "object storage (textUri, textSha256). occurredAt defaults to the time of the append."
)
class AppendConversationEventInput:
    thread_id: strawberry.ID
    direction: EventDirection
    event_type: ConversationEventType
    external_ref: str
    text: str | None = None
    metadata: JSON | None = None
    occurred_at: datetime | None = None
    media: list[EventMediaInput] = strawberry.field(default_factory=list)
    media_uris: list[str] = strawberry.field(
        default_factory=list, description="Artifacts already stored under the client's prefix."
    )


def event_item(data: AppendConversationEventInput) -> dict[str, Any]:
    """The plain fields the domain validates, media decoded to (bytes, content type)."""
    media = [(upload_bytes(m.content_base64), m.content_type) for m in data.media]
    return dataclasses.asdict(data) | {"media": media, "media_uris": list(data.media_uris)}
