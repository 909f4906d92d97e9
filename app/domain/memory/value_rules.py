"""Memory record value rules: tags, bounded text, expiry, kind (or memory type) and procedure
type."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import check_aware, enum_value
from app.model.enums import MEMORY_TYPE_KINDS, MemoryKind, MemoryType, ProcedureType
from app.settings import MAX_TTL_S

TAG = re.compile(r"^[a-z0-9][a-z0-9._:/+-]{0,63}$")
MAX_TAGS = 32
MAX_TEXT = 20_000
MAX_NAME = 200


def normal_tag(value: Any) -> str:
    """Tags are compared case-insensitively with whitespace runs as '-': 'Q3 Plan' == 'q3-plan'."""
    text = "-".join(value.strip().lower().split()) if isinstance(value, str) else ""
    if not TAG.match(text):
        raise ValidationFailed(
            "each tag must be 1-64 characters: letters, digits and . _ : / + - "
            f"(spaces become '-'), got {value!r}",
            field="tags",
        )
    return text


def check_tags(values: Any) -> list[str]:
    if values is None:
        return []
    if not isinstance(values, list | tuple) or len(values) > MAX_TAGS:
        raise ValidationFailed(f"tags must list at most {MAX_TAGS} tags", field="tags")
    return list(dict.fromkeys(normal_tag(value) for value in values))


def check_bounded_text(value: Any, *, field: str, limit: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > limit:
        raise ValidationFailed(f"{field} must be at most {limit} characters", field=field)
    return value


def check_expiry(expires_at: Any, ttl_seconds: Any, *, now: datetime) -> datetime | None:
    """When the record expires: `expires_at` (aware, in the future) or now + `ttl_seconds`."""
    if expires_at is not None and ttl_seconds is not None:
        raise ValidationFailed("give expires_at or ttl_seconds, not both", field="ttl_seconds")
    if ttl_seconds is not None:
        if isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, int | float):
            raise ValidationFailed("ttl_seconds must be a number", field="ttl_seconds")
        if math.isnan(ttl_seconds) or not 0 < ttl_seconds <= MAX_TTL_S:
            raise ValidationFailed(
                f"ttl_seconds must be > 0 and at most {MAX_TTL_S}", field="ttl_seconds"
            )
        return now + timedelta(seconds=float(ttl_seconds))
    if expires_at is None:
        return None
    if not isinstance(expires_at, datetime):
        raise ValidationFailed("expires_at must be a date-time", field="expires_at")
    check_aware(expires_at, field="expires_at")
    if expires_at <= now:
        raise ValidationFailed(
            f"expires_at must be in the future (now is {now.isoformat()})", field="expires_at"
        )
    return expires_at.astimezone(UTC)


def check_kind(value: Any) -> MemoryKind:
    return enum_value(MemoryKind, value, field="kind")


def check_kind_and_type(kind: Any, memory_type: Any) -> tuple[MemoryKind, MemoryType | None]:
    """The kind, and seed 004's memory type when given: a memory type names its kind
    (MEMORY_TYPE_KINDS), so the kind may be left out; a kind given with it must be that one."""
    if memory_type is None:
        return check_kind(kind), None
    checked = enum_value(MemoryType, memory_type, field="memory_type")
    mapped = MEMORY_TYPE_KINDS[checked]
    if kind is not None and check_kind(kind) is not mapped:
        raise ValidationFailed(
            f"memory_type {checked.value} is kind {mapped.value}: leave kind out or give "
            f"{mapped.value}, not {kind}",
            field="kind",
        )
    return mapped, checked


def check_procedure_type(value: Any, kind: MemoryKind) -> str | None:
    if value is None:
        if kind is MemoryKind.PROCEDURAL:
            raise ValidationFailed(
                "procedural records need a procedure_type", field="procedure_type"
            )
        return None
    if kind is not MemoryKind.PROCEDURAL:
        raise ValidationFailed(
            "procedure_type is only for records of kind procedural", field="procedure_type"
        )
    return enum_value(ProcedureType, value, field="procedure_type").value
