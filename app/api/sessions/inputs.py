"""Inputs of the session mutations and queries; transcript bytes travel as text or base64."""

from __future__ import annotations

from enum import Enum

import strawberry
from strawberry.scalars import JSON

from app.api.assets.inputs import upload_bytes
from app.api.search import inputs as _search_inputs  # noqa: F401 - registers SearchMode
from app.domain.kernel.errors import ValidationFailed
from app.model.enums import MemoryType

TEXT_CONTENT_TYPE = "text/plain; charset=utf-8"
BINARY_CONTENT_TYPE = "application/octet-stream"


@strawberry.enum(description="What rehydrateSession returns besides the session.")
class RehydrateMode(Enum):
    SUMMARY_ONLY = "summary_only"
    FULL = "full"


@strawberry.input(
    description="A session of an agent (a namespace segment: letters, digits, . _ @ + = -), "
    "optionally about a subject. externalRef (e.g. a call id) makes the start idempotent."
)
class StartSessionInput:
    agent: str
    subject: str | None = None
    external_ref: str | None = None
    metadata: JSON | None = strawberry.field(default=None, description="A JSON object.")
    session_type: str | None = strawberry.field(
        default=None,
        description="Seed 004's session type, e.g. conversation (the default) or task: 1-32 "
        "lower-case letters, digits, '_', '.', '-'.",
    )
    ttl_seconds: int | None = strawberry.field(
        default=None,
        description="Seconds the session lives after its last entry (0: never expires; "
        "default AGENTMEM_SESSION_TTL_S); the sweeper then purges it with its entries.",
    )
    entry_ttl_seconds: int | None = strawberry.field(
        default=None,
        description="Seconds each entry lives (0: never expires; default "
        "AGENTMEM_SESSION_ENTRY_TTL_S); putSessionEntry's ttlSeconds overrides it.",
    )


@strawberry.input(
    description="An entry at the end of a timeline: text and/or content (a JSON object), tags, "
    "priority 1-10 (default 5). speaker: who said it (default: the session's agent; anyone "
    "else counts as the other party in the built-in summary)."
)
class PutSessionEntryInput:
    session_id: strawberry.ID
    timeline: str | None = strawberry.field(default=None, description='Default "main".')
    text: str | None = None
    content: JSON | None = None
    tags: list[str] | None = None
    priority: int | None = None
    speaker: str | None = None
    ttl_seconds: int | None = strawberry.field(
        default=None,
        description="Seconds this entry lives (0: never expires; default: the session's "
        "entryTtlSeconds).",
    )
    memory_type: MemoryType | None = strawberry.field(
        default=None,
        description="Seed 004's memory type: one of kind working (CONVERSATION, "
        "CONTEXT, AGENT_STATE).",
    )


@strawberry.input(
    description="A verbatim record of the session (default kind: transcript): exactly one of "
    "text (stored as UTF-8) and contentBase64 (standard, padded base64)."
)
class AttachSessionTranscriptInput:
    session_id: strawberry.ID
    text: str | None = None
    content_base64: str | None = None
    content_type: str | None = strawberry.field(
        default=None,
        description=f"Default {TEXT_CONTENT_TYPE} for text, {BINARY_CONTENT_TYPE} for base64.",
    )
    kind: str | None = strawberry.field(default=None, description='Default "transcript".')

    def payload(self) -> tuple[bytes, str]:
        if (self.text is None) == (self.content_base64 is None):
            raise ValidationFailed("give exactly one of text and contentBase64", field="text")
        if self.text is not None:
            return self.text.encode("utf-8"), self.content_type or TEXT_CONTENT_TYPE
        return upload_bytes(self.content_base64) or b"", self.content_type or BINARY_CONTENT_TYPE
