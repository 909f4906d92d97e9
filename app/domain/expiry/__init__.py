"""Expiry (seed 002's conversation TTL and caps): the default and per-call time to live of
sessions, session entries and conversation threads, a thread's cap on the events it keeps, and
the memory sweeper's step that purges what expired and trims what outgrew its cap."""

from app.domain.expiry.objects import remove_thread_objects
from app.domain.expiry.rules import (
    NO_LIFETIMES,
    Lifetimes,
    check_cap,
    entry_ttl,
    entry_ttl_changes,
    session_lifetime,
    slid,
    thread_lifetime,
    ttl_changes,
)
from app.domain.expiry.sweep import ExpirySweep

__all__ = [
    "NO_LIFETIMES",
    "ExpirySweep",
    "Lifetimes",
    "check_cap",
    "entry_ttl",
    "entry_ttl_changes",
    "remove_thread_objects",
    "session_lifetime",
    "slid",
    "thread_lifetime",
    "ttl_changes",
]
