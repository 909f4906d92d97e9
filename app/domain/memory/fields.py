"""A memory to write, checked and with its large content already in object storage: everything
that can fail on bad input fails here, before the transaction."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.principal import Principal
from app.domain.memory import rules
from app.domain.memory import value_rules as vrules
from app.domain.memory.content import ContentPolicy, store_content
from app.model.enums import MemoryKind
from app.settings import Settings

FIELDS = frozenset(
    {
        "subject",
        "agent",
        "session_id",
        "path",
        "key",
        "kind",
        "memory_type",
        "text",
        "content",
        "tags",
        "priority",
        "source_agent",
        "expires_at",
        "ttl_seconds",
        "timeline",
        "procedure_type",
        "expected_version",
    }
)


@dataclass(frozen=True)
class MemoryPolicy:
    """The tunables (Settings.memory_inline_content_max, memory_max_content_bytes)."""

    content: ContentPolicy = ContentPolicy()

    @classmethod
    def of(cls, settings: Settings) -> MemoryPolicy:
        return cls(
            ContentPolicy(settings.memory_inline_content_max, settings.memory_max_content_bytes)
        )


@dataclass(frozen=True)
class PreparedMemory:
    namespace: str
    key: str | None
    kind: MemoryKind
    state: dict[str, Any]  # the record's own fields (replaced as a whole by an upsert)
    expected_version: int | None


def _expected_version(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValidationFailed(
            "expected_version must be an integer >= 0 (0: the key must be new)",
            field="expected_version",
        )
    return value


def check_memory(fields: dict[str, Any], *, principal: Principal, now: datetime) -> PreparedMemory:
    """Every check of a memory's fields, without storing anything."""
    unknown = set(fields) - FIELDS
    if unknown:
        raise ValidationFailed(f"unknown memory fields: {', '.join(sorted(unknown))}")
    parts = rules.namespace_parts(fields)
    kind, memory_type = vrules.check_kind_and_type(fields.get("kind"), fields.get("memory_type"))
    text = vrules.check_bounded_text(fields.get("text"), field="text", limit=vrules.MAX_TEXT)
    if fields.get("content") is None and not (text and text.strip()):
        raise ValidationFailed("a memory needs text or content (or both)", field="text")
    timeline = fields.get("timeline")
    source_agent = fields.get("source_agent") or principal.agent_name
    state = parts | {
        "kind": kind.value,
        "memory_type": None if memory_type is None else memory_type.value,
        "text": text,
        "tags": vrules.check_tags(fields.get("tags")),
        "priority": rules.check_priority(fields.get("priority")),
        "source_agent": vrules.check_bounded_text(
            source_agent, field="source_agent", limit=vrules.MAX_NAME
        ),
        "expires_at": vrules.check_expiry(
            fields.get("expires_at"), fields.get("ttl_seconds"), now=now
        ),
        "timeline": None if timeline is None else rules.check_segment(timeline, field="timeline"),
        "procedure_type": vrules.check_procedure_type(fields.get("procedure_type"), kind),
    }
    return PreparedMemory(
        namespace=rules.join_namespace(parts),
        key=rules.check_key(fields.get("key")),
        kind=kind,
        state=state,
        expected_version=_expected_version(fields.get("expected_version")),
    )


async def prepare_memory(
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    fields: dict[str, Any],
    policy: MemoryPolicy,
    now: datetime,
) -> PreparedMemory:
    """`check_memory`, then the content stored (object storage when above the inline limit)."""
    memory = check_memory(fields, principal=principal, now=now)
    return await with_content(artifacts, principal, memory, fields.get("content"), policy)


async def with_content(
    artifacts: ArtifactStore,
    principal: Principal,
    memory: PreparedMemory,
    content: Any,
    policy: MemoryPolicy,
) -> PreparedMemory:
    """A checked memory with its content stored (object storage when above the inline limit)."""
    stored = await store_content(artifacts, principal, content, policy.content)
    return dataclasses.replace(memory, state=memory.state | stored.props())
