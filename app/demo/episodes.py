"""The agents' work on one demo plan as rows (memory.py puts it together): the episodes of the
five agents, the engagement on its published posts and their performance metrics.

Per plan, a tree of episodes: the planner's (WROTE the objective and campaigns, READ earlier
lessons) SPAWNED the creator's (READ the blueprint nodes, WROTE every asset) and, once a
campaign went to publishing, the publisher's (READ the publish jobs and the assets it posted),
which SPAWNED the engager's (READ the posts, WROTE the engagement events, some of them failed).
Per published campaign, each blueprint's media variant on its first platform is measured:
impressions on the first full day after the post, saves over the week from then. The analyst's
episode, a root of its own, then writes the lessons (lessons.py). Every episode is closed with
its tool-call log (final_log, as the API writes it at close) queued for S3.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from app.demo import memory_vocab as m
from app.demo.context import NEWEST_WEEK, PlanContext, week_start
from app.demo.documents import ONBOARDING
from app.demo.facts import BlueprintFacts, CampaignFacts, PlanFacts, VariantFacts
from app.demo.rows import Rows, memory_rngs, seeded_uuid
from app.domain.engagement.repository import check_new_event
from app.domain.episodes.rules import check_new_episode, check_outcome, final_log, tool_call_lines
from app.domain.kernel.principal import Principal
from app.domain.lessons.links import link_props
from app.model.enums import EngagementResult, EpisodeStatus, Platform, Role

# The demo's present: the end of the newest plans' week. Metric windows end a day before it.
DEMO_NOW = NEWEST_WEEK + timedelta(days=7)
LAST_WINDOW_END = NEWEST_WEEK + timedelta(days=6)
JSONL = "application/x-ndjson"
RECENT_LESSONS = 60  # lessons of earlier plans that later ones read, support or contradict


@dataclass(frozen=True)
class LessonNote:
    """A lesson of an earlier plan, as later plans find it."""

    id: str
    line: str
    blueprint: str
    platform: str
    lesson_type: str
    created_at: datetime


@dataclass
class MemoryState:
    """What the memory of one plan takes from the plans before it: the agents' ids and the
    newest lessons (plans are built in order, so this is the same whatever the batches)."""

    agents: dict[str, str]
    lessons: deque[LessonNote] = field(default_factory=lambda: deque(maxlen=RECENT_LESSONS))

    def before(self, at: datetime) -> list[LessonNote]:
        """The lessons written before `at`, newest first."""
        return [note for note in reversed(self.lessons) if note.created_at < at]


def build_agents(
    rows: Rows, *, client_id: str, seed: int, plans: int, existing: dict[str, str]
) -> dict[str, str]:
    """The five agents' ids by name: those `existing` (name -> id) lacks are appended to rows,
    made the day the client was onboarded (two weeks before the first plan)."""
    ids = random.Random(f"{client_id}:{seed}:agents")
    created = week_start(index=0, plans=plans) - ONBOARDING
    agents = dict(existing)
    for number, spec in enumerate(m.AGENTS.values()):
        agent_id = seeded_uuid(ids)  # drawn for every agent: ids do not depend on `existing`
        if spec.name in agents:
            continue
        at = created + timedelta(minutes=number)
        rows.nodes["Agent"].append(
            {
                "id": agent_id,
                "client_id": client_id,
                "name": spec.name,
                "description": spec.description,
                "created_at": at,
                "updated_at": at,
            }
        )
        agents[spec.name] = agent_id
    return agents


@dataclass
class Episode:
    """An open episode: its node's row (closed later) and what its log needs."""

    spec: m.AgentSpec
    row: dict[str, Any]
    links: list[dict[str, Any]] = field(default_factory=list)
    children: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return str(self.row["id"])

    @property
    def created_at(self) -> datetime:
        created: datetime = self.row["created_at"]
        return created


@dataclass
class MemoryContext(PlanContext):
    """A PlanContext drawing from the memory's own generators (rows.memory_rngs)."""

    state: MemoryState | None = None

    def __post_init__(self) -> None:
        self.ids, self.rng = memory_rngs(client_id=self.client_id, seed=self.seed, index=self.index)

    @property
    def agents(self) -> dict[str, str]:
        assert self.state is not None
        return self.state.agents

    def minutes(self, low: int, high: int) -> timedelta:
        return timedelta(minutes=self.rng.randint(low, high))

    def open(
        self,
        agent: str,
        *,
        at: datetime,
        parent: Episode | None,
        input_refs: dict[str, Any],
        retrieval_refs: list[dict[str, Any]] | None = None,
    ) -> Episode:
        """A running episode of `agent` (RAN), SPAWNED by `parent`, as startEpisode stores it."""
        spec = m.AGENTS[agent]
        fields = {
            "task_class": spec.task_class,
            "trigger": spec.trigger.value,
            "input_refs": input_refs,
            "retrieval_refs": retrieval_refs,
        }
        episode_id = self.record(
            "AgentEpisode",
            created_at=at,
            agent_name=agent,
            **check_new_episode(fields),
            status=EpisodeStatus.RUNNING.value,
            parent_episode_id=None if parent is None else parent.id,
            tool_call_count=0,
            tool_call_appends=0,
            tool_call_bytes=0,
        )
        episode = Episode(spec, self.rows.nodes["AgentEpisode"][-1])
        self.link("RAN", source=self.agents[agent], target=episode_id)
        if parent is not None:
            self.link("SPAWNED", source=parent.id, target=episode_id)
            parent.children.append(episode_id)
        return episode

    def touch(
        self, episode: Episode, kind: str, *, label: str, target: str, role: str, at: datetime
    ) -> None:
        """A READ or WROTE (kind READ_ASSET, WROTE_EVENT, ...) with its role, as
        linkEpisodeRecords stores it."""
        props = {"role": role, "created_at": at}
        self.rows.rels[kind].append({"from_id": episode.id, "to_id": target, "props": props})
        direction = "read" if kind.startswith("READ") else "write"
        link = {"direction": direction, "id": target, "label": label, "role": role}
        episode.links.append(link | {"linked_at": at})

    def close(
        self,
        episode: Episode,
        *,
        at: datetime,
        status: EpisodeStatus,
        summary: str,
        failed_tool: str | None = None,
    ) -> None:
        """Close the episode as closeEpisode does: its tool calls and log (queued for S3),
        status, latency, cost and summary."""
        row = episode.row
        calls = [
            {"tool": tool, "args": args, "ok": failed_tool != tool}
            for tool, args in episode.spec.tools
        ]
        lines = tool_call_lines(
            calls, first_seq=1, recorded_at=row["created_at"] + (at - row["created_at"]) / 2
        )
        latency = int((at - row["created_at"]).total_seconds() * 1000)
        outcome = check_outcome(
            {
                "output_summary": summary,
                "cost_tokens_est": self.rng.randint(*episode.spec.tokens),
                "latency_ms": latency,
            }
        )
        final = outcome | {
            "status": status.value,
            "latency_ms": latency,
            "closed_at": at,
            "tool_calls": len(calls),
        }
        row |= {"tool_call_count": len(calls), "tool_call_appends": 1}
        row["tool_call_bytes"] = len(lines)
        links = sorted(episode.links, key=lambda x: (x["linked_at"], x["id"], x["role"]))
        data = final_log(
            row, links=links, children=episode.children, tool_calls=[lines], outcome=final
        )
        stored = self.upload(
            parts=("episodes", episode.id, "tool-call-log.jsonl"), data=data, content_type=JSONL
        )
        row |= {
            "status": status.value,
            "latency_ms": latency,
            "closed_at": at,
            "updated_at": at,
            "output_summary": summary,
            "cost_tokens_est": outcome["cost_tokens_est"],
            "tool_call_log_uri": stored.uri,
            "tool_call_log_sha256": stored.sha256,
        }

    def memory_link(
        self, kind: str, *, source: str, target: str, author: str, at: datetime, note: str
    ) -> str:
        """A MemoryLink (CAUSED, DERIVED_FROM, SUPPORTS, ...) with linkRecords' properties."""
        principal = Principal(self.client_id, Role.AGENT, key_id="demo", agent_name=author)
        props = link_props(principal, note=note, now=at) | {"link_id": self.new_id()}
        self.rows.rels[kind].append({"from_id": source, "to_id": target, "props": props})
        return str(props["link_id"])


@dataclass(frozen=True)
class Measured:
    """A measured media variant: its metrics' ids and values."""

    blueprint: BlueprintFacts
    variant: VariantFacts
    impressions_id: str
    impressions: float
    saves_id: str
    saves: float
    measured_at: datetime  # when the week's window ended

    @property
    def rate(self) -> float:
        return self.saves / max(1.0, self.impressions * 3.0)


@dataclass(frozen=True)
class FailedEvent:
    id: str
    failure: m.Failure
    platform: Platform


@dataclass
class PlanEpisodes:
    planner: Episode
    creator: Episode
    publisher: Episode | None = None
    engager: Episode | None = None

    def of(self, agent: str) -> Episode | None:
        return {
            m.PLANNER: self.planner,
            m.CREATOR: self.creator,
            m.PUBLISHER: self.publisher,
            m.ENGAGER: self.engager,
        }.get(agent)


def plan_and_create(ctx: MemoryContext, plan: PlanFacts) -> PlanEpisodes:
    """The planner's episode (left open) and the creator's it spawned (closed)."""
    assert ctx.state is not None
    started = plan.created_at - ctx.minutes(2, 20)
    known = [note for note in ctx.state.before(started) if note.line == plan.line.slug][:3]
    planner = ctx.open(
        m.PLANNER,
        at=started,
        parent=None,
        input_refs={
            "plan_id": plan.plan_id,
            "service_line": plan.line.slug,
            "week_start": plan.start.date().isoformat(),
        },
        retrieval_refs=[{"kind": "lesson", "id": note.id} for note in known],
    )
    for note in known:
        at = planner.created_at + ctx.minutes(1, 3)
        ctx.touch(planner, "READ_LESSON", label="Lesson", target=note.id, role="lesson", at=at)
    wrote = [("objective", plan.objective_id)]
    wrote += [("campaign", campaign.node_id) for campaign in plan.campaigns]
    for role, node_id in wrote:
        at = plan.created_at + ctx.minutes(5, 40)
        ctx.touch(planner, "WROTE_PLAN_NODE", label="PlanNode", target=node_id, role=role, at=at)
    blueprints = [b for campaign in plan.campaigns for b in campaign.blueprints]
    assets = [asset for blueprint in blueprints for asset in blueprint.assets]
    creator = ctx.open(
        m.CREATOR,
        at=ctx.at(day=0.5, spread=0.04),
        parent=planner,
        input_refs={"plan_id": plan.plan_id, "plan_node_ids": [b.node_id for b in blueprints]},
        retrieval_refs=[
            {"kind": "kb_fact", "id": f"kb:{plan.line.slug}:pricing"},
            {"kind": "kb_fact", "id": "kb:brand:voice"},
        ]
        + [
            {"kind": "lesson", "id": note.id}
            for note in known
            if note.blueprint in {b.blueprint.key for b in blueprints}
        ],
    )
    for blueprint in blueprints:
        at = creator.created_at + ctx.minutes(1, 20)
        ctx.touch(
            creator,
            "READ_PLAN_NODE",
            label="PlanNode",
            target=blueprint.node_id,
            role="blueprint",
            at=at,
        )
    for asset in assets:
        role = "media" if asset.media else "copy"
        ctx.touch(
            creator, "WROTE_ASSET", label="Asset", target=asset.id, role=role, at=asset.created_at
        )
    ctx.close(
        creator,
        at=max(asset.created_at for asset in assets) + ctx.minutes(10, 90),
        status=EpisodeStatus.SUCCESS,
        summary=f"Wrote {len(assets)} assets for {len(blueprints)} blueprints of "
        f"{plan.line.name}: {', '.join(sorted({b.blueprint.title for b in blueprints}))}.",
    )
    return PlanEpisodes(planner, creator)


def publish_and_engage(
    ctx: MemoryContext,
    plan: PlanFacts,
    episodes: PlanEpisodes,
    ran: list[CampaignFacts],
    published: list[CampaignFacts],
) -> list[FailedEvent]:
    """The publisher's episode (its runs) and the engager's it spawned on the published posts;
    returns the failed engagement events."""
    runs = [campaign.run for campaign in ran if campaign.run is not None]
    publisher = ctx.open(
        m.PUBLISHER,
        at=min(run.started for run in runs) - ctx.minutes(1, 4),
        parent=episodes.planner,
        input_refs={"package_ids": [campaign.package_id for campaign in ran]},
    )
    episodes.publisher = publisher
    for campaign in ran:
        at = publisher.created_at + ctx.minutes(0, 1)
        ctx.touch(
            publisher,
            "READ_PLAN_NODE",
            label="PlanNode",
            target=campaign.job_id,
            role="publish_job",
            at=at,
        )
        for blueprint in campaign.blueprints:
            ctx.touch(
                publisher,
                "READ_ASSET",
                label="Asset",
                target=blueprint.media.id,
                role="package_asset",
                at=at + ctx.minutes(1, 3),
            )
    closing = max(run.finished for run in runs)
    failed: list[FailedEvent] = []
    if published:
        first = min(c.run.finished for c in published if c.run is not None)
        engager = ctx.open(
            m.ENGAGER,
            at=first + ctx.minutes(20, 180),
            parent=publisher,
            input_refs={"run_ids": [c.run.id for c in published if c.run is not None]},
        )
        episodes.engager = engager
        closing = max(closing, engager.created_at)
        failed = _engage(ctx, plan, engager, published)
    errors = [run.error for run in runs if run.error]
    ctx.close(
        publisher,
        at=closing + ctx.minutes(2, 15),
        status=EpisodeStatus.FAILED if errors else EpisodeStatus.SUCCESS,
        summary=f"Published {len(published)} of {len(runs)} packages"
        + (f"; failed: {errors[0]}" if errors else "."),
        failed_tool="platform.create_post" if errors else None,
    )
    return failed


def _engage(
    ctx: MemoryContext, plan: PlanFacts, engager: Episode, published: list[CampaignFacts]
) -> list[FailedEvent]:
    """Replies, DMs, likes and moderation on the published posts (WROTE by the engager), some
    failed; closes the engager's episode."""
    kinds = [kind for kind, _ in m.ENGAGEMENT]
    weights = [weight for _, weight in m.ENGAGEMENT]
    failed: list[FailedEvent] = []
    at = engager.created_at
    posts: set[str] = set()
    for number, campaign in enumerate(published):
        run = campaign.run
        assert run is not None
        for event_number in range(ctx.rng.randint(2, 4)):
            blueprint = ctx.rng.choice(campaign.blueprints)
            variant = ctx.rng.choice(blueprint.media.variants)
            kind = ctx.rng.choices(kinds, weights)[0]
            failure = None
            roll = ctx.rng.random()
            causes = [f for f in m.FAILURES if f.kind is kind]
            if plan.index == 0 and number == 0 and event_number == 0:
                failure = m.FAILURES[ctx.rng.randrange(len(m.FAILURES))]  # samples need one
                kind = failure.kind
            elif causes and roll < 0.15:
                failure = ctx.rng.choice(causes)
            result = EngagementResult.FAIL if failure else EngagementResult.SUCCESS
            if failure is None and roll > 0.95:
                result = EngagementResult.PARTIAL
            at += ctx.minutes(3, 90)
            comment = ctx.rng.choice(m.COMMENTS).format(kw=blueprint.keyword)
            payload: dict[str, Any] = {"comment": comment}
            if kind.value == "comment_reply":
                payload["reply"] = ctx.rng.choice(m.REPLIES)
            fields = {
                "platform": variant.platform.value,
                "event_kind": kind.value,
                "actor": "ai",
                "result": result.value,
                "failure_reason": failure.reason if failure else None,
                "external_ref": f"{variant.platform.value}:{kind.value}:"
                f"{ctx.rng.randint(10**15, 10**16 - 1)}",
                "payload": payload,
                "variant_id": variant.id,
                "publish_run_id": run.id if run.platform is variant.platform else None,
            }
            stored = {k: value for k, value in check_new_event(fields).items() if value is not None}
            event_id = ctx.record("EngagementEvent", created_at=at, **stored)
            ctx.link("CONCERNS_VARIANT", source=event_id, target=variant.id)
            if "publish_run_id" in stored:
                ctx.link("CONCERNS_RUN", source=event_id, target=run.id)
            role = kind.value
            ctx.touch(
                engager, "WROTE_EVENT", label="EngagementEvent", target=event_id, role=role, at=at
            )
            if variant.asset_id not in posts:
                posts.add(variant.asset_id)
                ctx.touch(
                    engager,
                    "READ_ASSET",
                    label="Asset",
                    target=variant.asset_id,
                    role="post",
                    at=at - ctx.minutes(1, 2),
                )
            if failure is not None:
                failed.append(FailedEvent(event_id, failure, variant.platform))
    ctx.close(
        engager,
        at=at + ctx.minutes(5, 30),
        status=EpisodeStatus.SUCCESS,
        summary=f"Handled engagement on {len(posts)} posts; {len(failed)} actions failed.",
    )
    return failed


def measure(ctx: MemoryContext, plan: PlanFacts, campaign: CampaignFacts) -> list[Measured]:
    """Impressions on the first full day after the post and saves over the week from then, for
    each blueprint's media variant on its first platform (MEASURES); plan 0's reach and saves
    leaders differ."""
    run = campaign.run
    assert run is not None
    day = run.finished.replace(hour=0, minute=0, second=0) + timedelta(days=1)
    week_end = min(day + timedelta(days=7), LAST_WINDOW_END)
    values: list[tuple[BlueprintFacts, VariantFacts, float, float]] = []
    for blueprint in campaign.blueprints:
        reach, save_rate = m.BLUEPRINT_REACH[blueprint.blueprint.key]
        variant = blueprint.media.variants[0]
        first_day = round(m.REACH[variant.platform] * reach * ctx.rng.uniform(0.6, 1.4))
        week = first_day * ctx.rng.uniform(2.5, 4.0) * (week_end - day).days / 7
        saved = round(week * save_rate * ctx.rng.uniform(0.5, 1.5))
        values.append((blueprint, variant, float(first_day), float(saved)))
    if plan.index == 0:
        by_saves = sorted(range(len(values)), key=lambda i: -values[i][3])
        leader = max(range(len(values)), key=lambda i: values[i][2])
        if by_saves[0] == leader:  # the runner-up on saves takes the lead
            a, b = by_saves[0], by_saves[1]
            first, second = values[a][3], values[b][3]
            values[a] = (*values[a][:3], second)
            values[b] = (*values[b][:3], max(first, second + 1))
    measured = []
    for blueprint, variant, impressions, saves in values:
        day_id = _metric(
            ctx, variant, m.DAY_METRIC.value, impressions, day, day + timedelta(days=1)
        )
        week_id = _metric(ctx, variant, m.WEEK_METRIC.value, saves, day, week_end)
        measured.append(Measured(blueprint, variant, day_id, impressions, week_id, saves, week_end))
    return measured


def _metric(
    ctx: MemoryContext,
    variant: VariantFacts,
    metric_type: str,
    value: float,
    start: datetime,
    end: datetime,
) -> str:
    """A metric as ingestPerformanceMetrics stores one for a variant, ingested after its
    window."""
    ingested = end + ctx.minutes(60, 360)
    metric_id = ctx.record(
        "PerformanceMetric",
        created_at=ingested,
        platform=variant.platform.value,
        variant_id=variant.id,
        metric_type=metric_type,
        value=value,
        window_start=start,
        window_end=end,
    )
    ctx.link("MEASURES", source=metric_id, target=variant.id)
    return metric_id
