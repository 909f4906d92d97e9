"""Result types of the cross-agent traversals, built from the rows of their Cypher files."""

from __future__ import annotations

from typing import Any

import strawberry

from app.api.lessons.link_outputs import RecordLink, record_link
from app.api.types.agents import Agent, AgentEpisode
from app.api.types.assets import Asset
from app.api.types.engagement import EngagementEvent, PerformanceMetric
from app.api.types.lessons import Lesson


@strawberry.type(description="An episode a lesson was derived from, and how.")
class DerivedFromEpisode:
    episode: AgentEpisode
    via: list[str] = strawberry.field(description="DERIVED_FROM and/or EVIDENCED_BY.")
    assets: list[Asset] = strawberry.field(
        description="Assets published on the platform that the episode read or wrote."
    )


@strawberry.type
class AgentLesson:
    lesson: Lesson
    derived_from: list[DerivedFromEpisode]
    evidence_metrics: list[PerformanceMetric]
    evidence_episodes: list[AgentEpisode]


@strawberry.type(description="What an agent learned from the runs that touched a platform.")
class AgentPlatformLessons:
    agent: Agent
    total: int = strawberry.field(description="Every lesson found, before `first`.")
    lessons: list[AgentLesson]


@strawberry.type(description="Everything that contradicts a lesson.")
class Contradictions:
    lesson: Lesson
    links: list[RecordLink] = strawberry.field(
        description="CONTRADICTS links in either direction, with any kind of record."
    )
    superseded_by: list[Lesson]
    lessons: list[Lesson] = strawberry.field(
        description="The distinct contradicting lessons: CONTRADICTS-linked or superseding."
    )


@strawberry.type
class FailureCause:
    episode: AgentEpisode
    agent: Agent | None
    via: list[str] = strawberry.field(description="CAUSED and/or WROTE.")
    caused_link_ids: list[strawberry.ID]


@strawberry.type(description="The episodes behind a failed engagement event.")
class FailureCauses:
    event: EngagementEvent
    failed: bool
    episodes: list[FailureCause]


def agent_platform_lessons(row: dict[str, Any], ranked: list[dict[str, Any]]) -> Any:
    return AgentPlatformLessons(
        agent=Agent.from_row(row["agent"]),
        total=int(row["total"]),
        lessons=[
            AgentLesson(
                lesson=Lesson.from_row(lesson),
                derived_from=[
                    DerivedFromEpisode(
                        episode=AgentEpisode.from_row(d["episode"]),
                        via=sorted(d["via"]),
                        assets=[Asset.from_row(a) for a in d["assets"]],
                    )
                    for d in lesson["derived_from"]
                ],
                evidence_metrics=[
                    PerformanceMetric.from_row(m) for m in lesson["evidence_metrics"]
                ],
                evidence_episodes=[AgentEpisode.from_row(e) for e in lesson["evidence_episodes"]],
            )
            for lesson in ranked
        ],
    )


def contradictions(row: dict[str, Any]) -> Contradictions:
    return Contradictions(
        lesson=Lesson.from_row(row["lesson"]),
        links=[record_link(link) for link in row["links"]],
        superseded_by=[Lesson.from_row(x) for x in row["superseded_by"]],
        lessons=[Lesson.from_row(x) for x in row["lessons"]],
    )


def failure_causes(row: dict[str, Any]) -> FailureCauses:
    return FailureCauses(
        event=EngagementEvent.from_row(row["event"]),
        failed=bool(row["failed"]),
        episodes=[
            FailureCause(
                episode=AgentEpisode.from_row(x["episode"]),
                agent=Agent.from_row(x["agent"]) if x["agent"] else None,
                via=sorted(set(x["via"])),
                caused_link_ids=[strawberry.ID(i) for i in x["caused_link_ids"]],
            )
            for x in row["episodes"]
        ],
    )
