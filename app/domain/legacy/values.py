"""The legacy files' values (seed 004): times, JSON objects, the memory types and the kinds they
map to, and the deterministic identities that make a re-import find what it wrote before."""

from __future__ import annotations

import hashlib
import json
import math
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from app.domain.kernel.errors import ValidationFailed

# A legacy time later than the import by more than this is refused (a clock or unit mistake).
CLOCK_SLACK = timedelta(minutes=5)
# The namespace of the deterministic session ids (uuid5): any fixed UUID does.
SESSION_IDS = uuid.UUID("6f1c6a52-2f0e-4bd4-9d53-8d1f7f0c2a15")
MAX_LEGACY_ID = 128


class LegacyFormat(StrEnum):
    """The three legacy stores of seed 004, one JSON object per line (README "Importing")."""

    SESSION_MEMORY_AGENT = "session_memory_agent"
    CONTEXTUAL_MEMORY = "contextual_memory"
    JARVIS_MEMORY = "jarvis_memory"


@contextmanager
def at(where: str) -> Iterator[None]:
    """Re-raises a VALIDATION error of the block with `where` (e.g. conversation_history[3])
    in front of its field and message, so the rejected-rows report points into the line."""
    try:
        yield
    except ValidationFailed as error:
        field = error.details.get("field")
        raise ValidationFailed(
            f"{where}: {error.message}", field=f"{where}.{field}" if field else where
        ) from None


def parse_time(value: Any, *, field: str) -> datetime | None:
    """An ISO-8601 date-time (without an offset: UTC, as the legacy stores wrote them) or Unix
    seconds, in UTC; None stays None."""
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return datetime.fromtimestamp(value, UTC)
    if not isinstance(value, str):
        raise ValidationFailed(
            f"{field} must be an ISO-8601 date-time or Unix seconds", field=field
        )
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise ValidationFailed(
            f"{field} must be an ISO-8601 date-time or Unix seconds, got {value!r}", field=field
        ) from None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def legacy_time(
    value: Any, *, field: str, now: datetime, default: datetime | None = None
) -> datetime:
    """When something happened (parse_time), not after now; `default` when absent."""
    parsed = parse_time(value, field=field) or default
    if parsed is None:
        raise ValidationFailed(f"{field} is required", field=field)
    if parsed > now + CLOCK_SLACK:
        raise ValidationFailed(f"{field} {parsed.isoformat()} is in the future", field=field)
    return parsed


def said(item: dict[str, Any], *, known: tuple[str, ...]) -> tuple[Any, Any]:
    """(text, content) of a turn or an interaction: `content` (or `text`) a string is the
    text; an object is the content (its own "text" also the text); the item's other fields
    (beyond `known`) go into the content."""
    value = item.get("content", item.get("text"))
    extra = {k: v for k, v in item.items() if k not in known}
    if isinstance(value, dict):
        text = value.get("text") if isinstance(value.get("text"), str) else None
        return text, value | extra
    return value, extra or None


def legacy_id(value: Any, *, field: str) -> str:
    """A legacy identifier (a string or an integer) as text."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_LEGACY_ID:
        raise ValidationFailed(
            f"{field} must be a string of 1-{MAX_LEGACY_ID} characters", field=field
        )
    return value.strip()


def json_object(value: Any, *, field: str) -> dict[str, Any] | None:
    return None if value is None else required_object(value, field=field)


def required_object(value: Any, *, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValidationFailed(f"{field} must be a JSON object", field=field)
    return value


def json_list(value: Any, *, field: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValidationFailed(f"{field} must be a JSON array", field=field)
    return value


def session_id_of(client_id: str, legacy_session: str) -> str:
    """The id of the session a legacy session id becomes: the same for every import of the
    client, so contextual rows and SessionMemoryAgent rows of one session share its namespace
    whatever order they are imported in."""
    return str(uuid.uuid5(SESSION_IDS, f"{client_id}\n{legacy_session}"))


def digest(value: Any) -> str:
    """A short stable hash of a JSON value: the key of a legacy item that has no id."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:24]
