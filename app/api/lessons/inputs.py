"""Inputs of the lesson and snapshot mutations and queries, and the lesson policy in force."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.domain.lessons import LessonPolicy
from app.model.enums import LessonScope, LessonType


@strawberry.input(
    description="A lesson: confidence 0-1, decay half-life in days (> 0), evidence of the client."
)
class CreateLessonInput:
    scope: LessonScope
    lesson_type: LessonType
    statement: str
    confidence: float
    decay_half_life_days: float
    evidence_metric_ids: list[strawberry.ID] = strawberry.field(default_factory=list)
    evidence_episode_ids: list[strawberry.ID] = strawberry.field(default_factory=list)


@strawberry.input(description="Lesson filters; each is optional.")
class LessonWhere:
    scope: LessonScope | None = None
    lesson_type: LessonType | None = None
    statement_contains: str | None = None


def policy(info: Info) -> LessonPolicy:
    return LessonPolicy.of(info.context.services.settings)
