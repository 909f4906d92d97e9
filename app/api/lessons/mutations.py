"""Lesson and client snapshot mutations: thin resolvers over app/domain."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Annotated

import strawberry

from app.api.context import Info
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.lessons.inputs import CreateLessonInput, policy
from app.api.record_mutations import creates
from app.api.resolve import run, write
from app.api.types.lessons import ClientSnapshot, Lesson
from app.domain import lessons


@strawberry.type(description="What retireStaleLessons retired.")
class RetiredLessons:
    count: int
    lesson_ids: list[strawberry.ID]


@strawberry.type
class LessonMutations:
    create_lesson = creates(
        lessons.create_lesson,
        Lesson,
        CreateLessonInput,
        "Record a lesson with its evidence (metrics, episodes).",
        policy=policy,
    )

    @strawberry.mutation(
        description="Link more evidence to a lesson. Each new evidence record restarts the decay "
        "clock and raises confidence by lessonEvidenceBoost of its distance to 1 (see README)."
    )
    async def add_lesson_evidence(
        self,
        info: Info,
        id: strawberry.ID,
        metric_ids: list[strawberry.ID] | None = None,
        episode_ids: list[strawberry.ID] | None = None,
    ) -> Lesson:
        return await write(
            info,
            lessons.add_lesson_evidence,
            Lesson,
            lesson_id=id,
            metric_ids=list(metric_ids or []),
            episode_ids=list(episode_ids or []),
            policy=policy(info),
        )

    @strawberry.mutation(
        description="Replace a lesson by a contradicting one: the new lesson SUPERSEDES and "
        "CONTRADICTS the old one, which is kept with validTo = now and supersededBy set."
    )
    @idempotent
    async def supersede_lesson(
        self,
        info: Info,
        old_id: strawberry.ID,
        new_lesson: CreateLessonInput,
        note: str | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> Lesson:
        return await write(
            info,
            lessons.supersede_lesson,
            Lesson,
            old_id=old_id,
            fields=dataclasses.asdict(new_lesson),
            note=note,
            policy=policy(info),
        )

    @strawberry.mutation(
        description="Mark every lesson whose effective confidence is below the retire threshold "
        "as retired (admin)."
    )
    async def retire_stale_lessons(self, info: Info) -> RetiredLessons:
        ids = await run(info, lessons.retire_stale_lessons, policy=policy(info))
        return RetiredLessons(count=len(ids), lesson_ids=[strawberry.ID(i) for i in ids])

    @strawberry.mutation(
        description="Snapshot any time window (period CUSTOM; weekly and monthly ones are "
        "written on a schedule): top assets by metrics, top lessons by effective confidence, "
        "risks, and strategy notes (Markdown in object storage)."
    )
    @idempotent
    async def generate_client_snapshot(
        self,
        info: Info,
        from_: Annotated[datetime, strawberry.argument(name="from")],
        to: datetime,
        top: int = lessons.DEFAULT_TOP,
        idempotency_key: IdempotencyKey = None,
    ) -> ClientSnapshot:
        return await write(
            info,
            lessons.generate_client_snapshot,
            ClientSnapshot,
            window_start=from_,
            window_end=to,
            top=top,
            policy=policy(info),
        )
