"""The windows of scheduled client snapshots, in UTC: a week runs from Monday 00:00 to the next
Monday, a month from the 1st 00:00 to the next 1st. A snapshot covers a completed window only,
so its numbers do not move after it is written."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import check_aware, enum_value
from app.model.enums import SCHEDULED_PERIODS, SnapshotPeriod


@dataclass(frozen=True)
class SnapshotWindow:
    period: SnapshotPeriod
    start: datetime
    end: datetime

    @property
    def key(self) -> str:
        """What makes the window unique per client (ClientSnapshot.window_key)."""
        return f"{self.period.value}/{self.start.isoformat()}"

    @property
    def label(self) -> str:
        """The window in object keys and lines for people, e.g. "weekly-2026-11-16"."""
        return f"{self.period.value}-{self.start.date().isoformat()}"


def scheduled_period(value: object) -> SnapshotPeriod:
    """A period that has calendar windows (weekly, monthly); VALIDATION for any other."""
    period = enum_value(SnapshotPeriod, value, field="period")
    if period not in SCHEDULED_PERIODS:
        names = ", ".join(p.value for p in SCHEDULED_PERIODS)
        raise ValidationFailed(f"period must be one of: {names}", field="period")
    return period


def window_at(period: SnapshotPeriod, at: datetime) -> SnapshotWindow:
    """The window of the period that contains the instant `at`."""
    check_aware(at, field="at")
    day = at.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    if scheduled_period(period) is SnapshotPeriod.WEEKLY:
        start = day - timedelta(days=day.weekday())
        return SnapshotWindow(period, start, start + timedelta(days=7))
    start = day.replace(day=1)
    # The 1st plus 31 days is in the next month, whatever this month's length.
    end = (start + timedelta(days=31)).replace(day=1)
    return SnapshotWindow(period, start, end)


def last_completed(period: SnapshotPeriod, at: datetime) -> SnapshotWindow:
    """The latest window of the period that has ended at `at` (its end is at or before it)."""
    current = window_at(period, at)
    return window_at(period, current.start - timedelta(microseconds=1))
