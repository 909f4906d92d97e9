"""One demo plan's agent memory as rows: the agents' episodes, the engagement on its published
posts and their metrics (episodes.py), then what the analyst learnt from them (lessons.py).

Ids come from a generator seeded by (client, seed, plan index, "memory") and content from one
seeded by (seed, plan index, "memory"), apart from the plan's own generators, so the plan's
ids and texts are what they were before the memory existed; the memory of a plan depends on the
lessons of the plans before it (MemoryState), never on the batch that builds it. The five agents
are written once per client, with the first batch (an agent of that name the client already has
is reused).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.demo.episodes import (
    FailedEvent,
    Measured,
    MemoryContext,
    MemoryState,
    measure,
    plan_and_create,
    publish_and_engage,
)
from app.demo.facts import PlanFacts
from app.demo.lessons import build_lessons
from app.demo.rows import Rows
from app.model.enums import EpisodeStatus

EXISTING_AGENTS = """
MATCH (a:Agent {client_id: $client_id}) WHERE a.name IN $names
RETURN a.name AS name, a.id AS id
"""


@dataclass(frozen=True)
class MemorySamples:
    """Ids from one plan's memory, for the generator's samples."""

    root_episode_id: str  # the planner's episode: it spawned the creator's (and publisher's)
    lesson_id: str | None  # a lesson with CONTRADICTS links
    failed_event_id: str | None  # a failed engagement event with a CAUSED link


def build_memory(
    rows: Rows, *, plan: PlanFacts, state: MemoryState, client_id: str, bucket: str, seed: int
) -> MemorySamples:
    """Append the plan's episodes, engagement, metrics and lessons to `rows`."""
    ctx = MemoryContext(client_id, bucket, seed, plan.index, plan.start, rows, state=state)
    ctx.plan_id = plan.plan_id
    episodes = plan_and_create(ctx, plan)
    ran = [campaign for campaign in plan.campaigns if campaign.run is not None]
    published = [campaign for campaign in ran if campaign.published]
    failed: list[FailedEvent] = []
    measured: list[list[Measured]] = []
    if ran:
        failed = publish_and_engage(ctx, plan, episodes, ran, published)
        measured = [measure(ctx, plan, campaign) for campaign in published]
    last_child = episodes.publisher or episodes.creator
    ctx.close(
        episodes.planner,
        at=last_child.created_at + ctx.minutes(5, 30),
        status=EpisodeStatus.SUCCESS,
        summary=f"Planned {plan.line.name} for the week of {plan.start:%b %d}: objective, "
        f"{len(plan.campaigns)} campaigns, {sum(len(c.blueprints) for c in plan.campaigns)} "
        "blueprints.",
    )
    lesson_id = None
    if measured:
        lesson_id = build_lessons(
            ctx, plan=plan, episodes=episodes, measured=measured, failed=failed
        )
    caused = next((event.id for event in failed), None)
    return MemorySamples(episodes.planner.id, lesson_id, caused)
