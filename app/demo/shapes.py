"""One demo plan as rows: the plan, its snapshot and its plan graph (a DAG of 25 PlanNodes).

objective <-DEPENDS_ON- campaign (x2) <-DEPENDS_ON- blueprint_instance (x3 per campaign)
-PRODUCES-> post_intent (x2 per blueprint, one per platform) -REQUIRES_APPROVAL-> approval_gate
and -SCHEDULED_FOR-> publish_job (one of each per campaign; the job DEPENDS_ON the gate).
Assets hang off the blueprints (assets.py), a package off each campaign (publish.py); statuses
follow the plan's (stages.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from app.demo import vocab as v
from app.demo.assets import BlueprintSpec, build_assets, format_for
from app.demo.context import PlanContext, week_start
from app.demo.documents import History
from app.demo.facts import BlueprintFacts, CampaignFacts, PlanFacts
from app.demo.publish import build_package
from app.demo.rows import Rows
from app.demo.stages import Stage, node_status, objective_status, plan_status
from app.model.enums import CreatedBy, ObjectiveTag, PlanStatus, Platform
from app.model.enums import PlanNodeType as T


@dataclass(frozen=True)
class PlanSamples:
    plan_id: str
    blueprint_node_id: str
    package_id: str
    published_variant_id: str | None

    @staticmethod
    def of(plan: PlanFacts) -> PlanSamples:
        """Ids from the plan's first campaign."""
        first = plan.campaigns[0]
        blueprint = first.blueprints[0]
        published = blueprint.assets[0].variants[0].id if first.stage is Stage.PUBLISHED else None
        return PlanSamples(plan.plan_id, blueprint.node_id, first.package_id, published)


def build_plan(
    rows: Rows,
    *,
    client_id: str,
    bucket: str,
    seed: int,
    index: int,
    plans: int,
    history: History,
) -> PlanFacts:
    """Append plan `index` of `plans` to `rows` (an approved one freezing the versions of
    `history` current at its approval); returns what its agent memory needs of it."""
    start = week_start(index=index, plans=plans)
    ctx = PlanContext(client_id, bucket, seed, index, start, rows)
    status = plan_status(rng=ctx.rng, index=index, plans=plans)
    line = v.SERVICE_LINES[index % len(v.SERVICE_LINES)]
    extras = ctx.rng.sample(v.EXTRA_PLATFORMS, ctx.rng.randint(1, 2))
    platforms = [*v.CORE_PLATFORMS, *sorted(extras)]
    second_tag = ctx.rng.choice([t for t in ObjectiveTag if t is not ObjectiveTag.LEADGEN])
    offer = ctx.rng.choice(line.offers)
    created = ctx.at(day=0, spread=0.1)
    ctx.plan_id = ctx.record(
        "Plan",
        created_at=created,
        updated_at=created if status is PlanStatus.DRAFT else ctx.at(day=6, spread=0.9),
        name=f"{start:%b} Week {(start.day - 1) // 7 + 1} · {line.name}",
        time_window_start=start,
        time_window_end=start + timedelta(days=7, seconds=-1),
        objective_tags=[ObjectiveTag.LEADGEN.value, second_tag.value],
        target_platforms=[p.value for p in platforms],
        status=status.value,
        summary=(
            f"{line.name}, week of {start:%b %d, %Y}: '{offer}' for {line.audience}, plus "
            f"{second_tag.value} content on {', '.join(v.PLATFORM_LABELS[p] for p in platforms)}."
        ),
        created_by=ctx.rng.choice([CreatedBy.AGENT] * 3 + [CreatedBy.HUMAN]).value,
    )
    if status not in {PlanStatus.DRAFT, PlanStatus.REVIEWED}:
        _snapshot(ctx, history)
    stages = Stage.for_plan(status)
    objective = ctx.plan_node(
        node_type=T.OBJECTIVE,
        title=f"Grow {line.kpi.replace('_', ' ')} for {line.name.lower()} this week",
        inputs={"kpi": line.kpi, "target": ctx.rng.randint(12, 40), "offer": offer},
        summary=f"Weekly objective: {line.kpi.replace('_', ' ')} from {line.audience}.",
        status=objective_status(stages).value,
    )
    campaigns = tuple(
        _campaign(
            ctx,
            objective=objective,
            number=number,
            stage=stage,
            tag=tag,
            line=line,
            offer=offer,
            platforms=platforms,
        )
        for number, (stage, tag) in enumerate(
            zip(stages, (ObjectiveTag.LEADGEN, second_tag), strict=True)
        )
    )
    return PlanFacts(index, ctx.plan_id, start, created, status, line, objective, campaigns)


def _campaign(
    ctx: PlanContext,
    *,
    objective: str,
    number: int,
    stage: Stage,
    tag: ObjectiveTag,
    line: v.ServiceLine,
    offer: str,
    platforms: list[Platform],
) -> CampaignFacts:
    title = f"{line.name}: {offer}" if number == 0 else f"{line.name}: Ask the Expert"
    budget = ctx.rng.randint(3, 30) * 50
    campaign = ctx.plan_node(
        node_type=T.CAMPAIGN,
        title=title,
        inputs={"objective_tag": tag.value, "offer": offer, "budget_usd": budget},
        summary=f"{tag.value.capitalize()} campaign for {line.audience}; offer '{offer}'.",
        status=node_status(stage, T.CAMPAIGN).value,
    )
    ctx.edge("DEPENDS_ON", source=campaign, target=objective)
    gate = ctx.plan_node(
        node_type=T.APPROVAL_GATE,
        title=f"Brand & compliance review: {title}",
        inputs={"policy": "brand_safety_v3", "approver_role": "reviewer"},
        summary=f"Reviewer signs off every variant of '{title}' before it can publish.",
        status=node_status(stage, T.APPROVAL_GATE).value,
    )
    job = ctx.plan_node(
        node_type=T.PUBLISH_JOB,
        title=f"Publish: {title}",
        inputs={"platforms": [p.value for p in platforms], "slot": "Tue-Thu 7-9am local"},
        summary=f"Publishes the approved package of '{title}' in the morning slot.",
        status=node_status(stage, T.PUBLISH_JOB).value,
    )
    ctx.edge("DEPENDS_ON", source=job, target=gate)
    variant_ids: list[str] = []
    blueprints: list[BlueprintFacts] = []
    used: set[Platform] = set()
    for position, blueprint in enumerate(ctx.rng.sample(v.BLUEPRINTS, 3)):
        allowed = [p for p in blueprint.platforms if p in platforms]
        spec = BlueprintSpec(
            blueprint=blueprint,
            platforms=tuple(ctx.rng.sample(allowed, 2)),
            line=line,
            offer=offer,
            hook=ctx.rng.choice(line.hooks),
            keyword=ctx.rng.choice(line.keywords),
            cta_style=ctx.rng.choice(v.CTA_STYLES),
            stage=stage,
            position=(number, position),
        )
        node_id = _blueprint(ctx, spec=spec, campaign=campaign, gate=gate, job=job)
        used.update(spec.platforms)
        assets = build_assets(ctx, spec=spec, blueprint_node_id=node_id)
        variant_ids += [variant.id for asset in assets for variant in asset.variants]
        facts = BlueprintFacts(node_id, blueprint, spec.cta_style, spec.keyword, spec.hook, assets)
        blueprints.append(facts)
    targets = [p for p in platforms if p in used]
    package, run = build_package(ctx, stage=stage, variant_ids=variant_ids, platforms=targets)
    return CampaignFacts(campaign, job, stage, tuple(blueprints), package, run)


def _blueprint(ctx: PlanContext, *, spec: BlueprintSpec, campaign: str, gate: str, job: str) -> str:
    bp, first = spec.blueprint, spec.platforms[0]
    cta = v.CTA_PHRASES[spec.cta_style].format(kw=spec.keyword)
    node_id = ctx.plan_node(
        node_type=T.BLUEPRINT_INSTANCE,
        title=f"{v.PLATFORM_LABELS[first]} {bp.title}",
        inputs={
            "blueprint": bp.key,
            "cta_style": spec.cta_style,
            "offer": spec.offer,
            "platform": v.PLATFORM_NAMES[first],
        },
        summary=f"{bp.title} for {spec.line.audience}; hook about {spec.hook}; CTA: {cta}.",
        status=node_status(spec.stage, T.BLUEPRINT_INSTANCE).value,
    )
    ctx.edge("DEPENDS_ON", source=node_id, target=campaign)
    for platform in spec.platforms:
        fmt = format_for(bp.asset_type, platform)
        intent = ctx.plan_node(
            node_type=T.POST_INTENT,
            title=f"{v.PLATFORM_LABELS[platform]} {fmt.value.replace('_', ' ')}: {spec.hook}",
            inputs={"platform": platform.value, "format": fmt.value, "cta_keyword": spec.keyword},
            summary=f"{fmt.value.replace('_', ' ').capitalize()} on {v.PLATFORM_NAMES[platform]}"
            f" about {spec.hook}; CTA: {cta}.",
            status=node_status(spec.stage, T.POST_INTENT).value,
        )
        ctx.edge("PRODUCES", source=node_id, target=intent)
        ctx.edge("REQUIRES_APPROVAL", source=intent, target=gate)
        ctx.edge("SCHEDULED_FOR", source=intent, target=job)
    return node_id


def _snapshot(ctx: PlanContext, history: History) -> None:
    """The approval's snapshot, freezing (FREEZES, and the version id fields) the version of
    each document current when it was taken."""
    created = ctx.at(day=0.2, spread=0.1)
    frozen = history.frozen_at(created)
    notes = ctx.rng.choice(v.SNAPSHOT_NOTES)
    snapshot_id = ctx.record("ConstraintsSnapshot", created_at=created, notes=notes)
    ctx.rows.nodes["ConstraintsSnapshot"][-1] |= frozen
    ctx.rows.nodes["Plan"][-1]["constraints_ref"] = snapshot_id
    ctx.link("CONSTRAINED_BY", source=ctx.plan_id, target=snapshot_id)
    for version_id in frozen.values():
        ctx.link("FREEZES", source=snapshot_id, target=version_id)
