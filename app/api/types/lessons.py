"""Lessons and client snapshots (seed 000, 8); fields held to app/model by tests."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from app.api.types.base import NodeType, node_type, to_many
from app.model.enums import LessonScope, LessonType


@node_type("Lesson")
@strawberry.type(description="A learned lesson (EpisodicMemory, seed 000, 8.1).")
class Lesson(NodeType):
    id: strawberry.ID
    scope: LessonScope
    lesson_type: LessonType
    statement: str
    evidence_refs: JSON | None
    confidence: float
    decay_half_life_days: float
    last_evidence_at: datetime
    valid_from: datetime
    valid_to: datetime | None
    superseded_by: strawberry.ID | None
    retired: bool
    created_at: datetime
    updated_at: datetime

    evidence_metrics = to_many("PerformanceMetric", "Metrics that evidence it (EVIDENCED_BY).")
    evidence_episodes = to_many("AgentEpisode", "Episodes that evidence it (EVIDENCED_BY).")
    supersedes = to_many("Lesson", "Lessons it superseded (SUPERSEDES).")
    superseded = to_many("Lesson", "The lesson that superseded it (SUPERSEDES, incoming).")


@node_type("ClientSnapshot")
@strawberry.type(description="A periodic snapshot of what worked (seed 000, 8.2).")
class ClientSnapshot(NodeType):
    id: strawberry.ID
    time_window_start: datetime
    time_window_end: datetime
    top_assets: list[strawberry.ID] | None
    top_lessons: list[strawberry.ID] | None
    risks: JSON | None
    strategy_notes_uri: str | None
    created_at: datetime
    updated_at: datetime

    assets = to_many("Asset", "Top assets of the window (TOP_ASSET).")
    lessons = to_many("Lesson", "Top lessons of the window (TOP_LESSON).")
