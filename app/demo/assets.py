"""One blueprint's creative work as rows: 2 Assets (media and caption pack), 2 AssetVariants
each (one per blueprint platform), the PromptArtifact behind each asset (prompt text queued for
S3) and an ApprovalRecord per variant."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from app.demo import vocab as v
from app.demo.context import PlanContext
from app.demo.facts import AssetFacts, VariantFacts
from app.demo.stages import APPROVAL_STATUS, ASSET_STATUS, VARIANT_STATUS, Stage
from app.model.enums import (
    ApprovalStatus,
    AssetType,
    CreatedBy,
    Platform,
    TaskClass,
    VariantFormat,
    VariantStatus,
)

PROMPT_CONTENT_TYPE = "text/plain; charset=utf-8"
TEXT_ASSETS = frozenset({AssetType.CAPTION_PACK, AssetType.HASHTAG_PACK, AssetType.COPY})
VIDEO_ASSETS = frozenset({AssetType.REEL, AssetType.VIDEO_CLIP})


@dataclass(frozen=True)
class BlueprintSpec:
    blueprint: v.Blueprint
    platforms: tuple[Platform, ...]
    line: v.ServiceLine
    offer: str
    hook: str
    keyword: str
    cta_style: str
    stage: Stage
    position: tuple[int, int]  # (campaign, blueprint) within the plan


def format_for(asset_type: AssetType, platform: Platform) -> VariantFormat:
    if asset_type in VIDEO_ASSETS:
        return v.VIDEO_FORMATS[platform]
    if asset_type is AssetType.STORY:
        return v.STORY_FORMATS[platform]
    return v.STILL_FORMATS[platform]


def build_assets(
    ctx: PlanContext, *, spec: BlueprintSpec, blueprint_node_id: str
) -> tuple[AssetFacts, ...]:
    """Append the blueprint's assets; returns them (the media asset first) with their variants."""
    bp = spec.blueprint
    second = AssetType.HASHTAG_PACK if bp.asset_type is AssetType.COPY else AssetType.CAPTION_PACK
    kinds = ((bp.asset_type, bp.task_class), (second, TaskClass.LLM_CREATOR))
    assets: list[AssetFacts] = []
    for number, (asset_type, task_class) in enumerate(kinds):
        made = ctx.at(day=0.6 + number * 0.1, spread=0.8)
        prompt_id = ctx.new_id()
        asset_id = ctx.record(
            "Asset",
            created_at=made,
            updated_at=made + timedelta(hours=ctx.rng.randint(1, 60)),
            asset_type=asset_type.value,
            source_blueprint_instance_id=blueprint_node_id,
            status=ASSET_STATUS[spec.stage].value,
            title=_asset_title(asset_type, spec),
            summary=f"{asset_type.value.replace('_', ' ').capitalize()} for {bp.title}: "
            f"{spec.hook}; offer '{spec.offer}'.",
            created_by=(CreatedBy.HUMAN if ctx.rng.random() < 0.1 else CreatedBy.AGENT).value,
        )
        ctx.link("FROM_BLUEPRINT", source=asset_id, target=blueprint_node_id)
        ids = [
            _variant(
                ctx,
                spec=spec,
                asset_id=asset_id,
                asset_type=asset_type,
                platform=platform,
                checksum=ctx.checksum(*spec.position, number, variant_number),
                at=made,
            )
            for variant_number, platform in enumerate(spec.platforms)
        ]
        for variant_id in ids:
            _approval(ctx, stage=spec.stage, asset_id=asset_id, variant_id=variant_id, at=made)
        refs: dict[str, dict[str, Any]] = {
            "input_refs": {
                "plan_node_ids": [blueprint_node_id],
                "kb_facts": [
                    f"kb:{spec.line.slug}:pricing",
                    f"kb:{spec.line.slug}:faq",
                    "kb:brand:voice",
                ],
                "template": bp.key,
            },
            "output_refs": {"asset_ids": [asset_id], "variant_ids": ids},
        }
        _prompt(ctx, spec=spec, prompt_id=prompt_id, task_class=task_class, refs=refs, at=made)
        ctx.link("GENERATED_ASSET", source=prompt_id, target=asset_id)
        for variant_id in ids:
            ctx.link("GENERATED_VARIANT", source=prompt_id, target=variant_id)
        variants = tuple(
            VariantFacts(variant_id, asset_id, platform)
            for variant_id, platform in zip(ids, spec.platforms, strict=True)
        )
        assets.append(AssetFacts(asset_id, number == 0, made, variants))
    return tuple(assets)


def _asset_title(asset_type: AssetType, spec: BlueprintSpec) -> str:
    if asset_type in TEXT_ASSETS and asset_type is not spec.blueprint.asset_type:
        return f"{asset_type.value.replace('_', ' ').capitalize()}: {spec.hook}"
    return f"{spec.blueprint.title}: {spec.hook}"


def _variant(
    ctx: PlanContext,
    *,
    spec: BlueprintSpec,
    asset_id: str,
    asset_type: AssetType,
    platform: Platform,
    checksum: str,
    at: datetime,
) -> str:
    fmt = format_for(spec.blueprint.asset_type, platform)
    cta = v.CTA_PHRASES[spec.cta_style].format(kw=spec.keyword)
    caption = f"{_sentence(spec.hook)}? {spec.offer} this week. {_sentence(cta)}."
    if asset_type in TEXT_ASSETS:
        dimensions = {"characters": len(caption)}
    else:
        width, height = v.DIMENSIONS[fmt]
        dimensions = {"width": width, "height": height}
    video = asset_type in VIDEO_ASSETS or asset_type is AssetType.STORY
    status = VARIANT_STATUS[spec.stage]
    if status is VariantStatus.READY and ctx.rng.random() < 0.1:
        status = VariantStatus.PENDING
    variant_id = ctx.record(
        "AssetVariant",
        created_at=at + timedelta(minutes=ctx.rng.randint(2, 50)),
        updated_at=at + timedelta(hours=ctx.rng.randint(2, 80)),
        asset_id=asset_id,
        platform=platform.value,
        format=fmt.value,
        dimensions=json.dumps(dimensions),
        duration_seconds=float(ctx.rng.randint(15, 58)) if video else None,
        caption_text=f"{caption} #{spec.line.slug.replace('_', '')} #homeowners #{v.BRAND_TAG}",
        checksum=checksum,
        status=status.value,
    )
    ctx.link("HAS_VARIANT", source=asset_id, target=variant_id)
    return variant_id


def _approval(
    ctx: PlanContext, *, stage: Stage, asset_id: str, variant_id: str, at: datetime
) -> None:
    status = APPROVAL_STATUS[stage]
    approved = status is ApprovalStatus.APPROVED
    approval_id = ctx.record(
        "ApprovalRecord",
        created_at=at + timedelta(hours=ctx.rng.randint(4, 20)),
        updated_at=at + timedelta(hours=ctx.rng.randint(21, 44)),
        asset_id=asset_id,
        variant_id=variant_id,
        required_by_policy=ctx.rng.random() < 0.9,
        status=status.value,
        reviewer_user_id=ctx.rng.choice(v.REVIEWERS) if approved else None,
        notes=ctx.rng.choice(v.APPROVAL_NOTES) if approved else None,
    )
    ctx.link("APPROVES", source=approval_id, target=variant_id)


def _prompt(
    ctx: PlanContext,
    *,
    spec: BlueprintSpec,
    prompt_id: str,
    task_class: TaskClass,
    refs: dict[str, dict[str, Any]],
    at: datetime,
) -> None:
    provider, model = ctx.rng.choice(v.MODELS[task_class])
    text = (
        f"Task: {task_class.value} for {v.BRAND}, a licensed home-services company.\n"
        f"Blueprint: {spec.blueprint.title} ({spec.blueprint.key}).\n"
        f"Audience: {spec.line.audience}. Service line: {spec.line.name}.\n"
        f"Hook: {spec.hook}.\nOffer: {spec.offer}.\n"
        f"CTA: {v.CTA_PHRASES[spec.cta_style].format(kw=spec.keyword)}.\n"
        f"Platforms: {', '.join(v.PLATFORM_NAMES[p] for p in spec.platforms)}.\n"
        "Tone: friendly, expert, no scare tactics; show a real technician; mention licensed "
        "and insured; no before/after claims without a job photo.\n"
    )
    stored = ctx.upload(
        parts=("prompts", prompt_id, "prompt.txt"),
        data=text.encode("utf-8"),
        content_type=PROMPT_CONTENT_TYPE,
    )
    params = v.PROMPT_PARAMS[task_class] | {"seed": ctx.rng.randint(1, 99_999)}
    ctx.record(
        "PromptArtifact",
        node_id=prompt_id,
        created_at=at - timedelta(minutes=ctx.rng.randint(1, 30)),
        task_class=task_class.value,
        provider=provider,
        model=model,
        params=json.dumps(params),
        prompt_text_uri=stored.uri,
        prompt_sha256=stored.sha256,
        prompt_size=len(stored.data),
        input_refs=json.dumps(refs["input_refs"]),
        output_refs=json.dumps(refs["output_refs"]),
    )


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]
