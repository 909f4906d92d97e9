"""Working-memory session rules and the extractive session summary (pure functions)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.domain.kernel.errors import InvalidTransition, ValidationFailed
from app.domain.sessions import rules
from app.domain.sessions.summary import summary_content, summary_text

NOW = datetime(2026, 1, 7, 10, 0, tzinfo=UTC)
SESSION = {"id": "s-1", "agent": "brad", "subject": "alice", "created_at": NOW}


def test_entry_time_is_strictly_increasing_whatever_the_clock() -> None:
    assert rules.entry_time(None, NOW) == NOW
    assert rules.entry_time(NOW - timedelta(seconds=1), NOW) == NOW
    # Same microsecond, or a clock that went back: just after the newest entry.
    assert rules.entry_time(NOW, NOW) == NOW + timedelta(microseconds=1)
    later = NOW + timedelta(seconds=5)
    assert rules.entry_time(later, NOW) == later + timedelta(microseconds=1)


def test_timelines_keep_first_use_order_and_are_bounded() -> None:
    assert rules.with_timeline(None, "main") == ["main"]
    assert rules.with_timeline(["main", "plan"], "main") == ["main", "plan"]
    full = [f"t{n}" for n in range(rules.MAX_TIMELINES)]
    assert rules.with_timeline(full, "t3") == full
    with pytest.raises(ValidationFailed) as refused:
        rules.with_timeline(full, "one-more")
    assert refused.value.details["field"] == "timeline"


def test_new_session_fields() -> None:
    stored = rules.check_new_session({"agent": "brad", "metadata": {"call": 1}})
    assert stored == {
        "agent": "brad",
        "subject": None,
        "external_ref": None,
        "metadata": '{"call":1}',
        "session_type": "conversation",
    }
    for bad, field in [
        ({"agent": ""}, "agent"),
        ({"agent": "brad", "subject": "al ice"}, "subject"),
        ({"agent": "brad", "external_ref": "-x"}, "external_ref"),
        ({"agent": "brad", "metadata": [1]}, "metadata"),
        ({"agent": "brad", "session_type": "a b"}, "session_type"),
    ]:
        with pytest.raises(ValidationFailed) as refused:
            rules.check_new_session(bad)
        assert refused.value.details.get("field") == field


def test_entry_fields_default_to_main_and_the_sessions_agent() -> None:
    fields = rules.entry_fields(SESSION, {"text": "hi"})
    assert fields["path"] == ["main"] and fields["timeline"] == "main"
    assert (fields["kind"], fields["source_agent"]) == ("working", "brad")
    assert fields["session_id"] == "s-1"
    said = rules.entry_fields(SESSION, {"text": "hi", "speaker": "alice", "timeline": "side"})
    assert (said["source_agent"], said["path"]) == ("alice", ["side"])
    with pytest.raises(ValidationFailed):
        rules.entry_fields(SESSION, {"text": "hi", "timeline": "a/b"})


def test_a_flushed_session_is_read_only() -> None:
    rules.check_open({"id": "s-1", "status": "open"})
    with pytest.raises(InvalidTransition) as refused:
        rules.check_open({"id": "s-1", "status": "flushed", "summary_record_id": "m-1"})
    assert refused.value.details["summary_record_id"] == "m-1"


def test_summary_text_validation() -> None:
    assert rules.check_summary(None) is None
    assert rules.check_summary("  done  ") == "done"
    with pytest.raises(ValidationFailed):
        rules.check_summary(" ")


def _entry(text: str, timeline: str = "main", *, by: str = "brad", priority: int = 5) -> Any:
    return {"text": text, "timeline": timeline, "source_agent": by, "priority": priority}


def test_summary_counts_quotes_highlights_and_is_deterministic() -> None:
    entries = [
        _entry("Hey Brad, can you help me with Sarah?", by="alice"),
        _entry("Talk to her directly on Monday.", priority=9),
        _entry("Plan: document everything", "planning"),
        {
            "content": {"mood": "stressed"},
            "timeline": "main",
            "source_agent": "brad",
            "priority": 1,
        },
    ]
    counts = {"main": 3, "planning": 1}
    ended = NOW + timedelta(minutes=12, seconds=34)
    text = summary_text(SESSION, entries, counts, ended)
    assert text.startswith(
        "Session of brad with alice: 4 entries on 2 timeline(s) "
        "(main: 3, planning: 1), 12 min 34 s."
    )
    assert "[main] Talk to her directly on Monday." in text
    assert '[main] {"mood": "stressed"}' in text
    assert text == summary_text(SESSION, entries, counts, ended)
    content = summary_content(SESSION, counts, ended, method="extractive")
    assert content["entry_count"] == 4 and content["timelines"] == ["main", "planning"]
    assert content["duration_seconds"] == 754.0


def test_summary_of_an_empty_session_is_its_header() -> None:
    text = summary_text({**SESSION, "subject": None}, [], {}, NOW)
    assert text == "Session of brad with no subject: 0 entries on 0 timeline(s), 0 s."
