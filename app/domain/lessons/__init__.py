"""Lessons (seed 000, 8.1 and 8.4), MemoryLinks between any two records of a client (8.3) and
client snapshots (8.2), also weekly and monthly ones on a schedule."""

from app.domain.lessons.links import (
    LinkDirection,
    link_records,
    neighbourhood_params,
    record_links,
    record_query,
    unlink_records,
)
from app.domain.lessons.repository import (
    active_lessons,
    add_lesson_evidence,
    create_lesson,
    lesson_record,
    retire_stale_lessons,
    supersede_lesson,
)
from app.domain.lessons.rules import LessonPolicy, effective_confidence, is_retired
from app.domain.lessons.scheduled import WindowSnapshot, write_due_snapshots
from app.domain.lessons.snapshots import (
    DEFAULT_TOP,
    generate_client_snapshot,
    strategy_notes_text,
)
from app.domain.lessons.windows import SnapshotWindow, last_completed, window_at

__all__ = [
    "DEFAULT_TOP",
    "LessonPolicy",
    "LinkDirection",
    "SnapshotWindow",
    "WindowSnapshot",
    "active_lessons",
    "add_lesson_evidence",
    "create_lesson",
    "effective_confidence",
    "generate_client_snapshot",
    "is_retired",
    "last_completed",
    "lesson_record",
    "link_records",
    "neighbourhood_params",
    "record_links",
    "record_query",
    "retire_stale_lessons",
    "strategy_notes_text",
    "supersede_lesson",
    "unlink_records",
    "window_at",
    "write_due_snapshots",
]
