"""What the analyst learnt from one demo plan, as rows: its episode (a root, after the metric
windows closed) and the lessons it WROTE, with their evidence and MemoryLinks.

Per published campaign: a day-one lesson naming the reach leader, the week's lesson naming the
saves leader (it SUPERSEDES and CONTRADICTS the day-one lesson when they differ, else SUPPORTS
it) and a what_failed lesson on the weakest format (CONTRADICTS the day-one lesson when that
format was the reach leader). Per engagement failure a what_failed lesson on the platform, and
a CAUSED link from the episode that caused each failed event; per failed run a what_failed
lesson. Lessons are EVIDENCED_BY metrics and episodes and DERIVED_FROM the episodes they were
drawn from; the leaders' assets VALIDATE them; each blueprint lesson SUPPORTS or CONTRADICTS the
lessons of earlier plans on the same blueprint and platform. A lesson's properties are those
createLesson stores, retired when its confidence has decayed below the threshold by the demo's
present (memory.DEMO_NOW), as a read then would have retired it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from app.demo import memory_vocab as m
from app.demo import vocab as v
from app.demo.episodes import (
    DEMO_NOW,
    Episode,
    FailedEvent,
    LessonNote,
    Measured,
    MemoryContext,
    PlanEpisodes,
)
from app.demo.facts import PlanFacts
from app.domain.kernel.field_rules import json_text
from app.domain.lessons.rules import (
    LessonPolicy,
    check_new_lesson,
    effective_confidence,
    initial_state,
    is_retired,
)
from app.model.enums import EpisodeStatus, LessonScope, LessonType

POLICY = LessonPolicy()
WORKED, FAILED = LessonType.WHAT_WORKED, LessonType.WHAT_FAILED


@dataclass
class Analysis:
    """The analyst's episode and the lessons it writes, one after another."""

    ctx: MemoryContext
    plan: PlanFacts
    analyst: Episode
    at: datetime
    written: int = 0

    def lesson(
        self,
        *,
        lesson_type: LessonType,
        scope: LessonScope,
        statement: str,
        confidence: float,
        metrics: list[str],
        episodes: list[str],
    ) -> dict[str, Any]:
        """A lesson as createLesson stores it, EVIDENCED_BY the metrics and episodes and
        WROTE by the analyst; returns its row."""
        ctx = self.ctx
        self.at += ctx.minutes(1, 6)
        self.written += 1
        fields = {
            "scope": scope.value,
            "lesson_type": lesson_type.value,
            "statement": statement,
            "confidence": round(confidence, 3),
            "decay_half_life_days": ctx.rng.choice(m.HALF_LIVES),
        }
        stored = check_new_lesson(fields)
        props = stored | initial_state(stored, now=self.at, threshold=POLICY.retire_threshold)
        decayed = effective_confidence(
            confidence=stored["confidence"],
            half_life_days=stored["decay_half_life_days"],
            last_evidence_at=self.at,
            now=DEMO_NOW,
        )
        props["retired"] = is_retired(decayed, threshold=POLICY.retire_threshold)
        evidence = {"metric_ids": metrics, "episode_ids": episodes}
        props["evidence_refs"] = json_text(evidence, field="evidence_refs")
        lesson_id = ctx.record("Lesson", created_at=self.at, **props)
        for metric_id in metrics:
            ctx.link("EVIDENCED_BY_METRIC", source=lesson_id, target=metric_id)
        for episode_id in episodes:
            ctx.link("EVIDENCED_BY_EPISODE", source=lesson_id, target=episode_id)
        role = lesson_type.value
        ctx.touch(
            self.analyst, "WROTE_LESSON", label="Lesson", target=lesson_id, role=role, at=self.at
        )
        row: dict[str, Any] = ctx.rows.nodes["Lesson"][-1]
        return row

    def link(self, kind: str, source: str, target: str, note: str) -> str:
        return self.ctx.memory_link(
            kind, source=source, target=target, author=m.ANALYST, at=self.at, note=note
        )

    def derived(self, lesson: dict[str, Any], episode: Episode) -> None:
        note = m.DERIVED_NOTE.get(episode.spec.name, "Drawn from this episode.")
        self.link("DERIVED_FROM", lesson["id"], episode.id, note)

    def supersede(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        """As supersedeLesson: SUPERSEDES and a CONTRADICTS link; the old one valid until now."""
        self.ctx.link("SUPERSEDES", source=new["id"], target=old["id"])
        self.link("CONTRADICTS", new["id"], old["id"], m.REVISED_NOTE)
        old |= {"valid_to": self.at, "superseded_by": new["id"], "updated_at": self.at}

    def relate(self, lesson: dict[str, Any], about: Measured) -> None:
        """SUPPORTS or CONTRADICTS (at most two) earlier lessons on the same blueprint and
        platform; then later ones find this one."""
        state = self.ctx.state
        assert state is not None
        note = LessonNote(
            lesson["id"],
            self.plan.line.slug,
            about.blueprint.blueprint.key,
            about.variant.platform.value,
            lesson["lesson_type"],
            self.at,
        )
        same = [
            earlier
            for earlier in state.before(self.at)
            if (earlier.blueprint, earlier.platform) == (note.blueprint, note.platform)
        ]
        for earlier in same[:2]:
            agrees = earlier.lesson_type == note.lesson_type
            kind, text = (
                ("SUPPORTS", m.AGREES_NOTE) if agrees else ("CONTRADICTS", m.DISAGREES_NOTE)
            )
            self.link(kind, note.id, earlier.id, text)
        state.lessons.append(note)


def build_lessons(
    ctx: MemoryContext,
    *,
    plan: PlanFacts,
    episodes: PlanEpisodes,
    measured: list[list[Measured]],
    failed: list[FailedEvent],
) -> str | None:
    """The analyst's episode and lessons; returns a lesson with CONTRADICTS links, if any."""
    latest = max(x.measured_at for campaign in measured for x in campaign)
    analyst = ctx.open(
        m.ANALYST,
        at=latest + timedelta(hours=6) + ctx.minutes(30, 120),
        parent=None,
        input_refs={
            "plan_id": plan.plan_id,
            "metric_types": [m.DAY_METRIC.value, m.WEEK_METRIC.value],
            "variant_ids": [x.variant.id for campaign in measured for x in campaign],
        },
    )
    analysis = Analysis(ctx, plan, analyst, analyst.created_at)
    contradicted = None
    for scores in measured:
        found = _campaign_lessons(analysis, episodes, scores)
        contradicted = contradicted or found
    _failure_lessons(analysis, episodes, failed)
    for campaign in plan.campaigns:
        run = campaign.run
        if run is None or run.error is None or episodes.publisher is None:
            continue
        lesson = analysis.lesson(
            lesson_type=FAILED,
            scope=LessonScope.PLATFORM,
            statement=m.PUBLISH_FAILURE_LESSON.format(
                platform=m.PLATFORM_TITLES[run.platform], error=run.error
            ),
            confidence=ctx.rng.uniform(0.55, 0.8),
            metrics=[],
            episodes=[episodes.publisher.id],
        )
        analysis.derived(lesson, episodes.publisher)
    count = sum(len(campaign) for campaign in measured)
    ctx.close(
        analyst,
        at=analysis.at + ctx.minutes(5, 20),
        status=EpisodeStatus.SUCCESS,
        summary=f"Read {2 * count} metrics of {count} variants and {len(failed)} failed "
        f"actions; wrote {analysis.written} lessons.",
    )
    return contradicted


def _campaign_lessons(
    analysis: Analysis, episodes: PlanEpisodes, scores: list[Measured]
) -> str | None:
    """Day-one, week and weakest-format lessons of one campaign; returns the day-one lesson
    when something contradicts it."""
    ctx, plan = analysis.ctx, analysis.plan
    reach = max(scores, key=lambda x: x.impressions)
    keeper = max(scores, key=lambda x: x.saves)
    weakest = min(scores, key=lambda x: x.saves)
    publisher = [episodes.publisher.id] if episodes.publisher else []
    early = analysis.lesson(
        lesson_type=WORKED,
        scope=LessonScope.BLUEPRINT,
        statement=ctx.rng.choice(m.DAY_ONE).format(**_words(plan, reach)),
        confidence=ctx.rng.uniform(0.4, 0.55),
        metrics=[reach.impressions_id],
        episodes=publisher,
    )
    analysis.derived(early, episodes.creator)
    analysis.link("VALIDATES", reach.variant.asset_id, early["id"], m.VALIDATES_NOTE)
    worked = analysis.lesson(
        lesson_type=WORKED,
        scope=LessonScope.BLUEPRINT,
        statement=ctx.rng.choice(m.WORKED).format(**_words(plan, keeper)),
        confidence=ctx.rng.uniform(0.6, 0.88),
        metrics=[keeper.impressions_id, keeper.saves_id],
        episodes=[episodes.creator.id],
    )
    analysis.derived(worked, episodes.creator)
    analysis.link("VALIDATES", keeper.variant.asset_id, worked["id"], m.VALIDATES_NOTE)
    contradicted = keeper is not reach
    if contradicted:
        analysis.supersede(worked, early)
    else:
        analysis.link("SUPPORTS", worked["id"], early["id"], m.CONFIRMED_NOTE)
    analysis.relate(worked, keeper)
    if weakest is not keeper:
        lesson = analysis.lesson(
            lesson_type=FAILED,
            scope=LessonScope.BLUEPRINT,
            statement=ctx.rng.choice(m.FAILED).format(**_words(plan, weakest)),
            confidence=ctx.rng.uniform(0.5, 0.8),
            metrics=[weakest.impressions_id, weakest.saves_id],
            episodes=[episodes.creator.id],
        )
        analysis.derived(lesson, episodes.creator)
        if weakest is reach:
            analysis.link("CONTRADICTS", lesson["id"], early["id"], m.REVISED_NOTE)
            contradicted = True
        analysis.relate(lesson, weakest)
    return str(early["id"]) if contradicted else None


def _failure_lessons(analysis: Analysis, episodes: PlanEpisodes, failed: list[FailedEvent]) -> None:
    """A CAUSED link from the causing episode to each failed event, and one what_failed lesson
    per failure and platform, derived from the engager's episode (and the causing one)."""
    ctx = analysis.ctx
    lessons: dict[tuple[str, str], dict[str, Any]] = {}
    for event in failed:
        cause = episodes.of(event.failure.cause) or episodes.engager
        assert cause is not None and episodes.engager is not None
        analysis.link("CAUSED", cause.id, event.id, event.failure.note)
        key = (event.failure.reason, event.platform.value)
        if key in lessons:
            continue
        involved = [episodes.engager] + ([cause] if cause is not episodes.engager else [])
        lesson = analysis.lesson(
            lesson_type=FAILED,
            scope=LessonScope.PLATFORM,
            statement=event.failure.lesson.format(platform=m.PLATFORM_TITLES[event.platform]),
            confidence=ctx.rng.uniform(0.5, 0.8),
            metrics=[],
            episodes=[episode.id for episode in involved],
        )
        for episode in involved:
            analysis.derived(lesson, episode)
        lessons[key] = lesson


def _words(plan: PlanFacts, about: Measured) -> dict[str, Any]:
    blueprint = about.blueprint
    return {
        "blueprint": blueprint.blueprint.title,
        "platform": m.PLATFORM_TITLES[about.variant.platform],
        "line": plan.line.name,
        "audience": plan.line.audience,
        "hook": blueprint.hook,
        "cta": v.CTA_PHRASES[blueprint.cta_style].format(kw=blueprint.keyword),
        "impressions": about.impressions,
        "saves": about.saves,
        "rate": about.rate,
    }
