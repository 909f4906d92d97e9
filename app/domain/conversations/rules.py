"""Conversation memory rules (seed 000, 5): thread status and handoff machines, and when a
thread needs a summary. Pure functions, checked before anything is written."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.domain.kernel.errors import InvalidTransition
from app.domain.kernel.status_machine import check_transition
from app.model.enums import HandoffState, ThreadStatus
from app.settings import Settings

S = ThreadStatus
THREAD_TRANSITIONS: dict[ThreadStatus, frozenset[ThreadStatus]] = {
    S.OPEN: frozenset({S.DORMANT, S.ESCALATED, S.CLOSED}),
    S.DORMANT: frozenset({S.OPEN, S.CLOSED}),
    S.ESCALATED: frozenset({S.OPEN, S.CLOSED}),
    S.CLOSED: frozenset({S.OPEN}),
}
H = HandoffState
HANDOFF_TRANSITIONS: dict[HandoffState, frozenset[HandoffState]] = {
    H.NONE: frozenset({H.AWAITING_HUMAN}),
    H.AWAITING_HUMAN: frozenset({H.COMPLETED}),
    H.COMPLETED: frozenset({H.NONE}),
}
# Handoff moves a caller may ask for directly; the others follow from status transitions
# (escalating: none -> awaiting_human; reopening: completed -> none).
DIRECT_HANDOFF = frozenset({(H.AWAITING_HUMAN, H.COMPLETED)})

EVERY_N = "every_n_events"
HOT = "hot_thread"
REQUESTED = "requested"


@dataclass(frozen=True)
class ConversationPolicy:
    """The tunables of conversation memory, from Settings (see README "Configuration")."""

    inline_text_max: int = 1_000
    every_n_events: int = 6
    hot_events: int = 5
    hot_window_s: float = 300.0

    @classmethod
    def from_settings(cls, settings: Settings) -> ConversationPolicy:
        return cls(
            inline_text_max=settings.event_inline_text_max,
            every_n_events=settings.summary_every_n_events,
            hot_events=settings.hot_thread_events,
            hot_window_s=settings.hot_thread_window_s,
        )


def status_changes(
    status: ThreadStatus, handoff: HandoffState, target: ThreadStatus
) -> dict[str, Any]:
    """The properties a status transition writes: the status and, where it follows, the handoff.

    Escalating hands the thread to a human (handoff none -> awaiting_human). Reopening takes a
    completed handoff back to none and is refused while a human is still awaited.
    """
    check_transition(THREAD_TRANSITIONS, status, target, what="a thread")
    changes: dict[str, Any] = {"status": target.value}
    if target is S.ESCALATED:
        changes["handoff_state"] = _next_handoff(handoff, H.AWAITING_HUMAN).value
    elif target is S.OPEN and handoff is H.AWAITING_HUMAN:
        raise InvalidTransition(
            "the thread is awaiting a human: complete the handoff before reopening it",
            current=status.value,
            target=target.value,
            handoff_state=handoff.value,
        )
    elif target is S.OPEN and handoff is H.COMPLETED:
        changes["handoff_state"] = H.NONE.value
    return changes


def handoff_changes(handoff: HandoffState, target: HandoffState) -> dict[str, Any]:
    """A handoff move asked for directly: only awaiting_human -> completed (a human finished)."""
    if (handoff, target) not in DIRECT_HANDOFF:
        _next_handoff(handoff, target)
        raise InvalidTransition(
            f"handoff {handoff.value!r} -> {target.value!r} follows from the thread status: "
            "escalate the thread to await a human, reopen it to clear a completed handoff",
            current=handoff.value,
            target=target.value,
        )
    return {"handoff_state": target.value}


def _next_handoff(handoff: HandoffState, target: HandoffState) -> HandoffState:
    check_transition(HANDOFF_TRANSITIONS, handoff, target, what="a handoff")
    return target


def is_hot(times: Sequence[datetime], *, policy: ConversationPolicy) -> bool:
    """True when some `hot_events` consecutive events (in sequence order) span at most the
    window: rapid messages."""
    n = policy.hot_events
    for end in range(n - 1, len(times)):
        window = times[end - n + 1 : end + 1]
        if (max(window) - min(window)).total_seconds() <= policy.hot_window_s:
            return True
    return False


def summary_reason(
    *,
    events_since_summary: int,
    recent_times: Sequence[datetime],
    new_events: int,
    policy: ConversationPolicy,
) -> str | None:
    """Why a thread needs a summary after `new_events` were appended, or None.

    `events_since_summary` counts the new events already; `recent_times` are the times of the
    thread's last events in sequence order, the new ones last (at least `hot_events - 1` earlier
    ones where the thread has them). Only windows that contain a new event count as hot.
    """
    if new_events <= 0:
        return None
    if events_since_summary >= policy.every_n_events:
        return EVERY_N
    tail = list(recent_times)[-(new_events + policy.hot_events - 1) :]
    if is_hot(tail, policy=policy):
        return HOT
    return None


def queue_changes(*, flagged: bool, reason: str | None, now: datetime) -> dict[str, Any]:
    """Joining the summary queue: the first reason and time stay until a summary is written."""
    if flagged or reason is None:
        return {}
    return {"needs_summary": True, "needs_summary_reason": reason, "needs_summary_since": now}


def after_summary(
    *, event_count: int, events_covered: int, policy: ConversationPolicy, now: datetime
) -> dict[str, Any]:
    """Counters after a summary covering events 1..events_covered: events appended meanwhile
    still count, and keep the thread queued if they reach N."""
    since = event_count - events_covered
    still = since >= policy.every_n_events
    return {
        "events_since_summary": since,
        "needs_summary": still,
        "needs_summary_reason": EVERY_N if still else None,
        "needs_summary_since": now if still else None,
    }
