"""What the agent memory of a demo plan (memory.py) needs to know of the plan built before it:
the ids, times and platforms of its nodes, assets, variants, package and run. Collected while the
plan is built (shapes.py, assets.py, publish.py) without drawing from the plan's generators, so
the plan's own ids and texts are what they were before the memory existed."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from app.demo import vocab as v
from app.demo.stages import Stage
from app.model.enums import PlanStatus, Platform, PublishRunStatus


@dataclass(frozen=True)
class VariantFacts:
    id: str
    asset_id: str
    platform: Platform


@dataclass(frozen=True)
class AssetFacts:
    id: str
    media: bool  # the blueprint's own asset (reel, carousel, ...), not its caption or hashtags
    created_at: datetime
    variants: tuple[VariantFacts, ...]


@dataclass(frozen=True)
class BlueprintFacts:
    node_id: str
    blueprint: v.Blueprint
    cta_style: str
    keyword: str
    hook: str
    assets: tuple[AssetFacts, ...]

    @property
    def media(self) -> AssetFacts:
        return next(asset for asset in self.assets if asset.media)


@dataclass(frozen=True)
class RunFacts:
    id: str
    platform: Platform
    status: PublishRunStatus
    started: datetime
    finished: datetime
    error: str | None


@dataclass(frozen=True)
class CampaignFacts:
    node_id: str
    job_id: str
    stage: Stage
    blueprints: tuple[BlueprintFacts, ...]
    package_id: str
    run: RunFacts | None

    @property
    def published(self) -> bool:
        return self.stage is Stage.PUBLISHED and self.run is not None


@dataclass(frozen=True)
class PlanFacts:
    index: int
    plan_id: str
    start: datetime  # the plan's week
    created_at: datetime
    status: PlanStatus
    line: v.ServiceLine
    objective_id: str
    campaigns: tuple[CampaignFacts, ...]
