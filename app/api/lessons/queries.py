"""Lesson reads: active lessons, and the cross-agent traversals (one Cypher file each)."""

from __future__ import annotations

import dataclasses
from typing import Any

import strawberry

from app.api.context import Info
from app.api.lessons import outputs as o
from app.api.lessons.inputs import LessonWhere, policy
from app.api.resolve import run
from app.api.types.lessons import Lesson
from app.domain import lessons
from app.domain.kernel.errors import NotFound, ValidationFailed
from app.domain.kernel.field_rules import check_text
from app.domain.kernel.ids import check_id
from app.domain.lessons import lesson_record
from app.graph.cypher_files import api_params, named_query
from app.graph.values import plain
from app.model.enums import Platform

MAX_LESSONS = 500


async def _run(info: Info, name: str, params: dict[str, Any], what: str) -> dict[str, Any]:
    scoped = api_params(params | {"client_id": info.context.caller().client_id})
    rows = await info.context.graph.read(named_query(name), scoped)
    if not rows:
        raise NotFound(f"no {what}", id=params.get("id"))
    return dict(plain(rows[0]))


def _lesson_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    nested = ("derived_from", "evidence_metrics", "evidence_episodes")
    return [lesson_record(row) | {k: row[k] for k in nested} for row in rows]


@strawberry.type
class LessonQueries:
    @strawberry.field(
        description="Lessons by effective confidence, highest first. By default only active "
        "ones (not retired, not superseded, at or above the retire threshold); lessons found "
        "below it are retired on the way. Retired lessons stay readable by id (lesson(id))."
    )
    async def active_lessons(
        self,
        info: Info,
        where: LessonWhere | None = None,
        include_retired: bool = False,
        first: int = 50,
    ) -> list[Lesson]:
        found = await run(
            info,
            lessons.active_lessons,
            where=dataclasses.asdict(where) if where else {},
            include_retired=include_retired,
            first=first,
            policy=policy(info),
        )
        return [Lesson.from_row(record) for record in found]

    @strawberry.field(
        description="The lessons derived (DERIVED_FROM link or EVIDENCED_BY) from episodes of "
        "the agent that read or wrote assets published on the platform, with their evidence: "
        "the `first` of highest effective confidence (`total` counts all). One Cypher query "
        "(cypher/queries/lessons_from_agent_platform.cypher)."
    )
    async def lessons_from_agent_on_platform(
        self, info: Info, agent_name: str, platform: Platform, first: int = 50
    ) -> o.AgentPlatformLessons:
        check_text({"agent_name": agent_name}, "agent_name", limit=200, required=True)
        if not 1 <= first <= MAX_LESSONS:
            raise ValidationFailed(f"first must be from 1 to {MAX_LESSONS}", field="first")
        params = {"agent_name": agent_name, "platform": Platform(platform).value, "first": first}
        row = await _run(info, "lessons_from_agent_platform", params, "agent")
        if row["agent"] is None:
            raise NotFound(f"no agent named {agent_name!r}", agent_name=agent_name)
        return o.agent_platform_lessons(row, _lesson_rows(row["lessons"]))

    @strawberry.field(
        description="Everything that contradicts a lesson: CONTRADICTS links either way and "
        "the lessons that superseded it. One query (cypher/queries/contradictions.cypher)."
    )
    async def contradictions(self, info: Info, lesson_id: strawberry.ID) -> o.Contradictions:
        params = {"id": check_id(lesson_id, field="lesson_id")}
        row = await _run(info, "contradictions", params, f"lesson with id {params['id']}")
        return o.contradictions(row)

    @strawberry.field(
        description="The episodes with a CAUSED link to a failed engagement event, or that "
        "WROTE it. One query (cypher/queries/episodes_causing_failure.cypher)."
    )
    async def episodes_causing_failure(
        self, info: Info, engagement_event_id: strawberry.ID
    ) -> o.FailureCauses:
        params = {"id": check_id(engagement_event_id, field="engagement_event_id")}
        what = f"engagement event with id {params['id']}"
        return o.failure_causes(await _run(info, "episodes_causing_failure", params, what))
