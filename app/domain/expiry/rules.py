"""Expiry rules (seed 002's conversation TTL and caps): the default time to live of sessions,
session entries and conversation threads, the per-call overrides, and a thread's cap.

A TTL is whole seconds; 0 means "never expires" (so a call can switch off a default) and null
means "the default". A session's or thread's expiry slides: each entry put or event appended
sets expires_at to then + ttl_seconds, as a Redis key's EXPIRE is renewed by each write. An
entry's TTL is fixed at its put: the call's ttlSeconds, else its session's entry_ttl_seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from app.domain.kernel.errors import ValidationFailed
from app.settings import MAX_TTL_S, Settings

MAX_EVENTS_KEPT = 1_000_000


@dataclass(frozen=True)
class Lifetimes:
    """The defaults (README "Configuration"): 0 = never expires / keeps every event."""

    session_ttl_s: int = 0
    session_entry_ttl_s: int = 0
    thread_ttl_s: int = 0
    thread_max_events: int = 0

    @classmethod
    def from_settings(cls, settings: Settings) -> Lifetimes:
        return cls(
            session_ttl_s=settings.session_ttl_s,
            session_entry_ttl_s=settings.session_entry_ttl_s,
            thread_ttl_s=settings.conversation_ttl_s,
            thread_max_events=settings.conversation_max_events,
        )


NO_LIFETIMES = Lifetimes()


def check_ttl(value: Any, *, field: str) -> int | None:
    """A TTL override: None (the default applies) or whole seconds, 0 to MAX_TTL_S."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TTL_S:
        raise ValidationFailed(
            f"{field} must be whole seconds from 0 (never expires) to {MAX_TTL_S}", field=field
        )
    return value


def check_cap(value: Any, *, field: str) -> int | None:
    """A cap override: None (the default applies) or events kept, 0 (keep all) to 1,000,000."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_EVENTS_KEPT:
        raise ValidationFailed(
            f"{field} must be an integer from 0 (keep every event) to {MAX_EVENTS_KEPT}",
            field=field,
        )
    return value


def _stored(seconds: int) -> int | None:
    """0 ("never", "keep all") is stored as no property at all."""
    return seconds or None


def expiry(ttl_seconds: int | None, now: datetime) -> datetime | None:
    return None if not ttl_seconds else now + timedelta(seconds=ttl_seconds)


def chosen(value: int | None, default: int) -> int | None:
    """The stored value of an override (None: the default)."""
    return _stored(default if value is None else value)


def session_lifetime(fields: dict[str, Any], policy: Lifetimes, now: datetime) -> dict[str, Any]:
    """A new session's ttl_seconds, entry_ttl_seconds and expires_at."""
    ttl = chosen(check_ttl(fields.get("ttl_seconds"), field="ttl_seconds"), policy.session_ttl_s)
    entry = check_ttl(fields.get("entry_ttl_seconds"), field="entry_ttl_seconds")
    return {
        "ttl_seconds": ttl,
        "entry_ttl_seconds": chosen(entry, policy.session_entry_ttl_s),
        "expires_at": expiry(ttl, now),
    }


def thread_lifetime(fields: dict[str, Any], policy: Lifetimes, now: datetime) -> dict[str, Any]:
    """A new thread's ttl_seconds, expires_at and max_events."""
    ttl = chosen(check_ttl(fields.get("ttl_seconds"), field="ttl_seconds"), policy.thread_ttl_s)
    cap = check_cap(fields.get("max_events"), field="max_events")
    return {
        "ttl_seconds": ttl,
        "expires_at": expiry(ttl, now),
        "max_events": chosen(cap, policy.thread_max_events),
    }


def entry_ttl(fields: dict[str, Any], session: dict[str, Any]) -> int | None:
    """The ttl_seconds of a new session entry (None: it never expires)."""
    ttl = check_ttl(fields.get("ttl_seconds"), field="ttl_seconds")
    return chosen(ttl, int(session.get("entry_ttl_seconds") or 0))


def slid(node: dict[str, Any], now: datetime) -> dict[str, Any]:
    """The expires_at a write at `now` gives a session or thread with a TTL (none without)."""
    ttl = node.get("ttl_seconds")
    return {"expires_at": expiry(int(ttl), now)} if ttl else {}


def ttl_changes(ttl_seconds: Any, now: datetime) -> dict[str, Any]:
    """setSessionTtl / setConversationTtl: the new TTL, counted from now (0: never expires)."""
    ttl = check_ttl(ttl_seconds, field="ttl_seconds")
    if ttl is None:
        raise ValidationFailed("ttl_seconds is required (0: never expires)", field="ttl_seconds")
    stored = _stored(ttl)
    return {"ttl_seconds": stored, "expires_at": expiry(stored, now)}


def entry_ttl_changes(entry_ttl_seconds: Any) -> dict[str, Any]:
    """setSessionTtl's new default TTL of the session's next entries (0: they never expire)."""
    ttl = check_ttl(entry_ttl_seconds, field="entry_ttl_seconds")
    return {"entry_ttl_seconds": _stored(ttl or 0)}
