"""Validation and stored shapes of conversation threads, events and summaries."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import (
    check_aware,
    check_text,
    check_updatable,
    enum_value,
    json_text,
)
from app.model.enums import (
    ConversationEventType,
    ConversationPlatform,
    EventDirection,
    ThreadType,
)

MAX_REF = 500
MAX_EVENT_TEXT = 200_000
MAX_SUMMARY_SHORT = 4_000
MAX_SUMMARY_LONG = 200_000
MAX_OPEN_QUESTIONS = 50
MAX_MEDIA = 10
MAX_BATCH = 500
THREAD_JSON = ("safety_flags", "open_questions")
EVENT_JSON = ("metadata",)
THREAD_UPDATABLE = frozenset({"participant_external_ref", "safety_flags", "open_questions"})


def check_ref(value: Any, *, field: str) -> str:
    """An external reference: a platform id or URL, 1-500 characters, not blank."""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_REF:
        raise ValidationFailed(f"{field} must be 1-{MAX_REF} characters", field=field)
    return value


def open_questions_text(value: Any) -> str | None:
    """A JSON list of at most 50 questions, each a non-blank string of at most 500 characters."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > MAX_OPEN_QUESTIONS:
        raise ValidationFailed(
            f"open_questions must be a JSON list of at most {MAX_OPEN_QUESTIONS} strings",
            field="open_questions",
        )
    for item in value:
        if not isinstance(item, str) or not item.strip() or len(item) > MAX_REF:
            raise ValidationFailed(
                f"each open question must be 1-{MAX_REF} characters", field="open_questions"
            )
    return json_text(value, field="open_questions", kinds=(list,))


def thread_values(fields: dict[str, Any]) -> dict[str, Any]:
    """The stored values of the updatable thread fields present in `fields`."""
    check_updatable(fields, THREAD_UPDATABLE, what="a thread")
    values: dict[str, Any] = {}
    if "participant_external_ref" in fields:
        ref = fields["participant_external_ref"]
        values["participant_external_ref"] = (
            None if ref is None else check_ref(ref, field="participant_external_ref")
        )
    if "safety_flags" in fields:
        values["safety_flags"] = json_text(fields["safety_flags"], field="safety_flags")
    if "open_questions" in fields:
        values["open_questions"] = open_questions_text(fields["open_questions"])
    return values


def new_thread_values(fields: dict[str, Any]) -> dict[str, Any]:
    """Platform, thread type and external ref of a new thread, plus its optional fields."""
    optional = {key: fields[key] for key in THREAD_UPDATABLE if fields.get(key) is not None}
    return thread_values(optional) | {
        "platform": enum_value(ConversationPlatform, fields.get("platform"), field="platform"),
        "thread_type": enum_value(ThreadType, fields.get("thread_type"), field="thread_type"),
        "external_thread_ref": check_ref(
            fields.get("external_thread_ref"), field="external_thread_ref"
        ),
    }


def event_values(fields: dict[str, Any]) -> dict[str, Any]:
    """Direction, type, external ref, text, metadata and time of an event to append."""
    check_text(fields, "text", limit=MAX_EVENT_TEXT)
    occurred = fields.get("occurred_at")
    if occurred is not None and not isinstance(occurred, datetime):
        raise ValidationFailed("occurred_at must be a date-time", field="occurred_at")
    check_aware(occurred, field="occurred_at")
    direction = enum_value(EventDirection, fields.get("direction"), field="direction")
    event_type = enum_value(ConversationEventType, fields.get("event_type"), field="event_type")
    return {
        "direction": direction.value,
        "event_type": event_type.value,
        "external_ref": check_ref(fields.get("external_ref"), field="external_ref"),
        "text": fields.get("text"),
        "metadata": json_text(fields.get("metadata"), field="metadata"),
        "occurred_at": occurred,
    }


def summary_text(value: Any, *, field: str, limit: int) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise ValidationFailed(f"{field} must be 1-{limit} characters", field=field)
    return value
