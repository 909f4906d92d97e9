"""Working-memory session rules (seed 003): what a session, an entry and a summary may hold,
the order of entries, and the read-only state of a flushed session.

Order: entries are ordered by (created_at, id). Each put takes the session's write lock and
stamps the entry max(now, the session's last_entry_at + 1 microsecond), so created_at is
strictly increasing within a session whatever the clock or the concurrency of the puts; the
keyset cursors of every other listing then work unchanged (ascending).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from app.domain import expiry
from app.domain.kernel.errors import InvalidTransition, ValidationFailed
from app.domain.kernel.field_rules import MAX_NAME, check_text, json_text
from app.domain.memory import check_segment, join_namespace
from app.model.enums import MemoryKind, MemorySessionStatus

DEFAULT_TIMELINE = "main"
MAX_SUMMARY = 20_000
MAX_TIMELINES = 64
EXTERNAL_REF = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,199}$")
# Seed 004's session_type (VARCHAR(32): conversation, task, ...): an open set of names.
SESSION_TYPE = re.compile(r"^[a-z][a-z0-9_.-]{0,31}$")
DEFAULT_SESSION_TYPE = "conversation"
TICK = timedelta(microseconds=1)


def check_new_session(fields: dict[str, Any]) -> dict[str, Any]:
    """The stored values of startSession's fields: agent (required) and subject, both namespace
    segments (app/domain/memory/rules.py), external_ref, metadata (a JSON object)."""
    agent = check_segment(fields.get("agent"), field="agent")
    subject = fields.get("subject")
    ref = fields.get("external_ref")
    if ref is not None and (not isinstance(ref, str) or not EXTERNAL_REF.match(ref)):
        raise ValidationFailed(
            "external_ref must be 1-200 characters: letters, digits, '.', '_', ':', '@', '/', "
            "'-' (starting with a letter or digit)",
            field="external_ref",
        )
    return {
        "agent": agent,
        "subject": None if subject is None else check_segment(subject, field="subject"),
        "external_ref": ref,
        "metadata": json_text(fields.get("metadata"), field="metadata"),
        "session_type": check_session_type(fields.get("session_type")),
    }


def check_session_type(value: Any) -> str:
    """A session type (default conversation), lower-cased: 1-32 of a-z, 0-9, '_', '.', '-'."""
    if value is None:
        return DEFAULT_SESSION_TYPE
    name = value.strip().lower() if isinstance(value, str) else ""
    if not SESSION_TYPE.match(name):
        raise ValidationFailed(
            "session_type must be 1-32 characters: a letter, then letters, digits, '_', '.', "
            f"'-' (e.g. conversation, task), got {value!r}",
            field="session_type",
        )
    return name


def entry_fields(session: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """The memory fields (app/domain/memory/fields.py) of a new entry of `session`: kind
    working, the session's namespace with the timeline (default "main") as its path, and the
    speaker (default: the session's agent) as source_agent. Text, content, tags, priority and
    memory type (one of kind working) are checked as for any memory record."""
    check_text(fields, "speaker", limit=MAX_NAME)
    timeline = fields.get("timeline")
    timeline = DEFAULT_TIMELINE if timeline is None else check_segment(timeline, field="timeline")
    return {
        "subject": session.get("subject"),
        "agent": session["agent"],
        "session_id": session["id"],
        "path": [timeline],
        "timeline": timeline,
        "kind": MemoryKind.WORKING.value,
        "memory_type": fields.get("memory_type"),
        "text": fields.get("text"),
        "content": fields.get("content"),
        "tags": fields.get("tags"),
        "priority": fields.get("priority"),
        "source_agent": (fields.get("speaker") or "").strip() or session["agent"],
        "ttl_seconds": expiry.entry_ttl(fields, session),
    }


def check_summary(text: Any) -> str | None:
    """An agent-supplied summary (None: the built-in summarizer writes it)."""
    if text is None:
        return None
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_SUMMARY:
        raise ValidationFailed(f"summary must be 1-{MAX_SUMMARY} characters", field="summary")
    return text.strip()


def entry_time(last_entry_at: datetime | None, now: datetime) -> datetime:
    """The created_at of the next entry: now, or just after the newest one (see module doc)."""
    if last_entry_at is None or now > last_entry_at:
        return now
    return last_entry_at + TICK


def with_timeline(timelines: list[str] | None, timeline: str) -> list[str]:
    known = list(timelines or [])
    if timeline in known:
        return known
    if len(known) >= MAX_TIMELINES:
        raise ValidationFailed(
            f"a session has at most {MAX_TIMELINES} timelines; reuse one of: {', '.join(known)}",
            field="timeline",
        )
    return [*known, timeline]


def check_open(session: dict[str, Any]) -> None:
    """A flushed session is read-only: no entries put or deleted, no second flush."""
    if session["status"] != MemorySessionStatus.OPEN.value:
        raise InvalidTransition(
            f"session {session['id']} was flushed at {session.get('ended_at')} into summary "
            f"{session.get('summary_record_id')}; it is read-only: start a new session",
            id=session["id"],
            status=session["status"],
            summary_record_id=session.get("summary_record_id"),
        )


def session_namespace(session: dict[str, Any], *path: str) -> str:
    """subject:S/agent:A/session:ID[/path]: an entry's path is its timeline, so that a
    namespace prefix selects a session or one timeline of it."""
    parts = {
        "subject": session.get("subject"),
        "agent": session["agent"],
        "session_id": session["id"],
        "path": list(path),
    }
    return join_namespace(parts)
