"""Thread status and handoff machines, and when a thread needs a summary (every N, hot)."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from app.domain.conversations.append import outcome, prepare, queue_updates
from app.domain.conversations.rules import (
    EVERY_N,
    HOT,
    REQUESTED,
    THREAD_TRANSITIONS,
    ConversationPolicy,
    after_summary,
    handoff_changes,
    is_hot,
    queue_changes,
    status_changes,
    summary_reason,
)
from app.domain.conversations.uploads import pending_event
from app.domain.kernel.errors import InvalidTransition, ValidationFailed
from app.domain.kernel.principal import Principal
from app.model.enums import HandoffState as H
from app.model.enums import Role
from app.model.enums import ThreadStatus as S
from app.settings import Settings

POLICY = ConversationPolicy()
T0 = datetime(2026, 2, 1, 12, 0, tzinfo=UTC)
ALLOWED = {
    (S.OPEN, S.DORMANT),
    (S.OPEN, S.ESCALATED),
    (S.OPEN, S.CLOSED),
    (S.DORMANT, S.OPEN),
    (S.DORMANT, S.CLOSED),
    (S.ESCALATED, S.OPEN),
    (S.ESCALATED, S.CLOSED),
    (S.CLOSED, S.OPEN),
}
THREAD_ID = "123e4567-e89b-42d3-a456-426614174000"


def minutes(*offsets: float) -> list[datetime]:
    return [T0 + timedelta(minutes=m) for m in offsets]


@pytest.mark.parametrize("current,target", list(itertools.product(S, S)))
def test_status_table_is_exactly_the_specified_one(current: S, target: S) -> None:
    assert (target in THREAD_TRANSITIONS[current]) == ((current, target) in ALLOWED)
    handoff = H.COMPLETED if current is S.ESCALATED else H.NONE
    if (current, target) in ALLOWED:
        assert status_changes(current, handoff, target)["status"] == target.value
    else:
        with pytest.raises(InvalidTransition):
            status_changes(current, handoff, target)


def test_escalating_awaits_a_human_and_reopening_clears_a_completed_handoff() -> None:
    assert status_changes(S.OPEN, H.NONE, S.ESCALATED) == {
        "status": "escalated",
        "handoff_state": "awaiting_human",
    }
    with pytest.raises(InvalidTransition, match="complete the handoff"):
        status_changes(S.ESCALATED, H.AWAITING_HUMAN, S.OPEN)
    assert status_changes(S.ESCALATED, H.COMPLETED, S.OPEN) == {
        "status": "open",
        "handoff_state": "none",
    }
    assert status_changes(S.ESCALATED, H.AWAITING_HUMAN, S.CLOSED) == {"status": "closed"}
    assert status_changes(S.OPEN, H.NONE, S.DORMANT) == {"status": "dormant"}


@pytest.mark.parametrize("current,target", list(itertools.product(H, H)))
def test_only_completing_a_handoff_is_a_direct_move(current: H, target: H) -> None:
    if (current, target) == (H.AWAITING_HUMAN, H.COMPLETED):
        assert handoff_changes(current, target) == {"handoff_state": "completed"}
    else:
        with pytest.raises(InvalidTransition):
            handoff_changes(current, target)


def test_hot_means_k_events_within_the_window() -> None:
    assert is_hot(minutes(0, 1, 2, 3, 4), policy=POLICY)
    assert not is_hot(minutes(0, 1, 2, 3), policy=POLICY)  # only four
    assert not is_hot(minutes(0, 2, 4, 6, 8), policy=POLICY)  # 8 minutes > 300 s
    assert is_hot(minutes(0, 30, 31, 32, 33, 34), policy=POLICY)  # the last five
    assert is_hot(minutes(0, 5), policy=ConversationPolicy(hot_events=2, hot_window_s=301))


def test_every_n_events_comes_first_and_only_new_events_make_a_thread_hot() -> None:
    slow = minutes(0, 10, 20, 30, 40, 50)
    assert (
        summary_reason(events_since_summary=5, recent_times=slow[:5], new_events=1, policy=POLICY)
        is None
    )
    assert (
        summary_reason(events_since_summary=6, recent_times=slow, new_events=1, policy=POLICY)
        == EVERY_N
    )
    burst_then_pause = [*minutes(0, 1, 2, 3, 4), *minutes(60)]
    assert (
        summary_reason(
            events_since_summary=1, recent_times=burst_then_pause, new_events=1, policy=POLICY
        )
        is None
    )
    assert (
        summary_reason(
            events_since_summary=5, recent_times=minutes(0, 1, 2, 3, 4), new_events=1, policy=POLICY
        )
        == HOT
    )
    assert (
        summary_reason(events_since_summary=9, recent_times=[], new_events=0, policy=POLICY) is None
    )


def test_queue_flags_are_sticky_and_summaries_keep_late_events_counted() -> None:
    joined = queue_changes(flagged=False, reason=HOT, now=T0)
    assert joined == {"needs_summary": True, "needs_summary_reason": HOT, "needs_summary_since": T0}
    assert queue_changes(flagged=True, reason=REQUESTED, now=T0) == {}
    assert queue_changes(flagged=False, reason=None, now=T0) == {}
    done = after_summary(event_count=10, events_covered=10, policy=POLICY, now=T0)
    assert done == {
        "events_since_summary": 0,
        "needs_summary": False,
        "needs_summary_reason": None,
        "needs_summary_since": None,
    }
    late = after_summary(event_count=16, events_covered=10, policy=POLICY, now=T0)
    assert late["events_since_summary"] == 6 and late["needs_summary_reason"] == EVERY_N


def test_policy_reads_the_settings() -> None:
    settings = Settings.model_construct(
        event_inline_text_max=50,
        summary_every_n_events=3,
        hot_thread_events=4,
        hot_thread_window_s=10.0,
    )
    assert ConversationPolicy.from_settings(settings) == ConversationPolicy(50, 3, 4, 10.0)
    defaults = Settings.model_construct()
    assert ConversationPolicy.from_settings(defaults) == ConversationPolicy(1_000, 6, 5, 300.0)


def _event(ref: str, **extra: object) -> object:
    fields = {"thread_id": THREAD_ID, "direction": "inbound", "event_type": "dm_message"}
    return pending_event(fields | {"external_ref": ref, "text": "hi"} | extra)


def test_append_prepares_new_events_and_maps_outcomes() -> None:
    principal = Principal(client_id="c1", role=Role.AGENT, key_id="k")
    later = T0 + timedelta(hours=1)
    events = [_event("a"), _event("b"), _event("c", occurred_at=later), _event("b")]
    prepared = prepare(principal, events, now=T0)  # type: ignore[arg-type]
    [thread_batch] = prepared.threads()
    sent = thread_batch["events"]
    assert [e["external_ref"] for e in sent] == ["a", "b", "c"]  # the repeat is not sent
    assert [e["created_at"] for e in sent] == [T0, T0 + timedelta(microseconds=1), later]
    assert all("sequence" not in e and e["client_id"] == "c1" for e in sent)
    existing = {"id": "old", "external_ref": "a", "sequence": 2}
    thread = {"id": THREAD_ID, "platform": "instagram", "events_since_summary": 6}
    created = [
        {"external_ref": "b", "sequence": 5, "created_at": sent[1]["created_at"]},
        {"external_ref": "c", "sequence": 6, "created_at": later},
    ]
    row = {"thread": thread | {"needs_summary": False}, "existing": [existing],
           "created": created, "recent": minutes(-90, -60)}  # fmt: skip
    results = outcome(prepared, [row])
    assert [duplicate for _, duplicate in results] == [True, False, False, True]
    assert results[0][0] is existing and results[3][0] == results[1][0]
    assert (results[1][0]["sequence"], results[1][0]["platform"]) == (5, "instagram")
    [update] = queue_updates([row], policy=POLICY, now=T0)
    assert update == {
        "id": THREAD_ID,
        "changes": {
            "needs_summary": True,
            "needs_summary_reason": EVERY_N,
            "needs_summary_since": T0,
        },
    }
    flagged = row | {"thread": thread | {"needs_summary": True}}
    assert queue_updates([flagged], policy=POLICY, now=T0) == []
    quiet = row | {"thread": thread | {"needs_summary": False, "events_since_summary": 2}}
    assert queue_updates([quiet], policy=POLICY, now=T0) == []


def test_events_are_validated_before_anything_else() -> None:
    with pytest.raises(ValidationFailed):
        _event("")
    with pytest.raises(ValidationFailed):
        _event("x", occurred_at=datetime(2026, 1, 1))  # no time zone
    with pytest.raises(ValidationFailed):
        _event("x", direction="sideways")
    with pytest.raises(ValidationFailed):
        _event("x", media=[(b"", "image/png")])
