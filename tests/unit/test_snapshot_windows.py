"""Scheduled client snapshots without the servers: the UTC calendar windows, the period
settings, the job's place in the schedule, the risk lines of the notes and the CLI's --at."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any, cast

import pytest
from pydantic import ValidationError

from app.cli.snapshots import at_from
from app.domain.kernel.errors import ValidationFailed
from app.domain.lessons import last_completed, window_at
from app.domain.lessons.snapshot_notes import strategy_notes
from app.domain.memory import MemorySweeper
from app.model.enums import SnapshotPeriod
from app.runtime.background import scheduled_jobs
from app.runtime.client_snapshots import SNAPSHOT_JOB
from app.settings import Settings

WEEKLY, MONTHLY = SnapshotPeriod.WEEKLY, SnapshotPeriod.MONTHLY


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("at", "start", "end"),
    [
        (utc(2026, 11, 26, 16, 30), utc(2026, 11, 16), utc(2026, 11, 23)),  # a Thursday
        (utc(2026, 11, 23), utc(2026, 11, 16), utc(2026, 11, 23)),  # Monday 00:00: just ended
        (utc(2026, 11, 22, 23, 59, 59), utc(2026, 11, 9), utc(2026, 11, 16)),  # Sunday night
        (utc(2027, 1, 1, 12), utc(2026, 12, 21), utc(2026, 12, 28)),  # across the year
        # Monday 01:00 in UTC+2 is Sunday 23:00 in UTC: that week has not ended yet.
        (datetime(2026, 11, 23, 1, tzinfo=timezone(timedelta(hours=2))), utc(2026, 11, 9), None),
    ],
)
def test_the_last_completed_week(at: datetime, start: datetime, end: datetime | None) -> None:
    window = last_completed(WEEKLY, at)
    assert (window.start, window.end) == (start, end or start + timedelta(days=7))
    assert window.start.weekday() == 0 and window.start.tzinfo == UTC


@pytest.mark.parametrize(
    ("at", "start", "end"),
    [
        (utc(2026, 11, 26, 16, 30), utc(2026, 10, 1), utc(2026, 11, 1)),
        (utc(2026, 11, 1), utc(2026, 10, 1), utc(2026, 11, 1)),  # the 1st 00:00: just ended
        (utc(2027, 1, 15), utc(2026, 12, 1), utc(2027, 1, 1)),  # across the year
        (utc(2028, 3, 31, 23), utc(2028, 2, 1), utc(2028, 3, 1)),  # a leap February
        (utc(2026, 3, 1), utc(2026, 2, 1), utc(2026, 3, 1)),
    ],
)
def test_the_last_completed_month(at: datetime, start: datetime, end: datetime) -> None:
    window = last_completed(MONTHLY, at)
    assert (window.start, window.end) == (start, end)


@pytest.mark.parametrize("period", [WEEKLY, MONTHLY])
def test_windows_tile_time_and_the_last_completed_one_ends_by_then(period: SnapshotPeriod) -> None:
    at = utc(2026, 1, 1, 7, 13)
    for _ in range(400):
        window, last = window_at(period, at), last_completed(period, at)
        assert window.start <= at < window.end and last.end <= at
        assert last.end == window.start  # the one before the window of `at`, no gap
        assert window_at(period, window.end).start == window.end
        at += timedelta(hours=37, minutes=11)


def test_keys_labels_and_bad_input() -> None:
    window = last_completed(WEEKLY, utc(2026, 11, 26))
    assert window.key == "weekly/2026-11-16T00:00:00+00:00"
    assert window.label == "weekly-2026-11-16"
    assert last_completed(MONTHLY, utc(2026, 11, 26)).key != window.key
    with pytest.raises(ValidationFailed, match="time zone"):
        last_completed(WEEKLY, datetime(2026, 11, 26))
    with pytest.raises(ValidationFailed, match="weekly, monthly") as raised:
        last_completed(SnapshotPeriod.CUSTOM, utc(2026, 11, 26))
    assert raised.value.details == {"field": "period"}
    with pytest.raises(ValidationFailed, match="period must be one of"):
        window_at(cast(Any, "daily"), utc(2026, 11, 26))


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    import os

    for name in list(os.environ):
        if name.startswith("AGENTMEM_"):
            monkeypatch.delenv(name)
    return monkeypatch


def test_period_settings_are_comma_separated(clean_environment: pytest.MonkeyPatch) -> None:
    assert Settings().client_snapshot_periods == (WEEKLY, MONTHLY)
    clean_environment.setenv("AGENTMEM_CLIENT_SNAPSHOT_PERIODS", " Monthly,weekly,monthly ")
    assert Settings().client_snapshot_periods == (MONTHLY, WEEKLY)
    clean_environment.setenv("AGENTMEM_CLIENT_SNAPSHOT_PERIODS", "")
    assert Settings().client_snapshot_periods == ()
    for bad in ("custom", "weekly,daily"):
        clean_environment.setenv("AGENTMEM_CLIENT_SNAPSHOT_PERIODS", bad)
        with pytest.raises(ValidationError, match="client_snapshot_periods"):
            Settings()


def test_the_snapshot_job_is_scheduled_on_its_interval_unless_no_period_is_set() -> None:
    graph, artifacts = cast(Any, None), cast(Any, None)
    sweeper = MemorySweeper(graph, artifacts)
    settings = Settings(client_snapshot_interval_s=120.0, memory_sweep_interval_s=7.0)
    intervals = {
        job.lease.name: job.interval_s
        for job in scheduled_jobs(graph, settings, sweeper, artifacts)
    }
    assert intervals[SNAPSHOT_JOB] == 120.0 and len(intervals) == 3
    assert set(intervals.values()) == {7.0, 120.0}
    off = Settings(client_snapshot_periods=())
    assert SNAPSHOT_JOB not in {
        job.lease.name for job in scheduled_jobs(graph, off, sweeper, artifacts)
    }


def test_notes_name_escalations_and_contradicted_lessons() -> None:
    risks = [
        {"kind": "escalations", "source": "conversation_thread", "count": 2, "sample_ids": []},
        {"kind": "escalations", "source": "agent_episode", "count": 1, "sample_ids": []},
        {"kind": "escalations", "source": "engagement_event", "count": 3, "sample_ids": []},
        {"kind": "contradicted_lesson", "statement": "Reels win", "count": 2, "lesson_id": "x"},
    ]
    notes = strategy_notes(
        {"assets": [], "lessons": [], "risks": risks},
        period=WEEKLY,
        start=utc(2026, 11, 16),
        end=utc(2026, 11, 23),
        author="admin:client-snapshots",
    )
    assert notes.startswith("# Strategy notes (weekly): 2026-11-16 to 2026-11-23\n")
    risk_lines = notes.split("## Risks\n")[1].splitlines()
    assert risk_lines == [
        "- 2 conversation threads escalated to a human",
        "- 1 agent episodes ended as escalated",
        "- 3 escalation engagement events",
        "- Contradicted lesson: Reels win (2 contradicting records)",
    ]


def test_cli_at_is_an_aware_instant() -> None:
    assert at_from("2026-11-23T00:00:00Z") == utc(2026, 11, 23)
    assert at_from("2026-11-23T01:00:00") == utc(2026, 11, 23, 1)  # no zone: UTC
    assert at_from(None).tzinfo is not None
    with pytest.raises(ValidationFailed, match="not ISO 8601"):
        at_from("next monday")
