"""Consistent statuses for demo data: a plan's status decides each campaign's stage, and the
stage decides every status below it (nodes, assets, variants, approvals, package, run).

| stage     | plan statuses             | approvals | variants  | package   | run       |
| planned   | draft, reviewed           | pending   | ready     | queued    | none      |
| scheduled | approved                  | approved  | approved  | scheduled | none      |
| retrying  | executing (2nd campaign)  | approved  | approved  | queued    | failed    |
| published | executing (1st), complete | approved  | published | published | succeeded |
|           | and archived              |           |           |           |           |
"""

from __future__ import annotations

import random
from enum import StrEnum

from app.model.enums import (
    ApprovalStatus,
    AssetStatus,
    PackageStatus,
    PlanNodeStatus,
    PlanNodeType,
    PlanStatus,
    PublishRunStatus,
    VariantStatus,
)

N = PlanNodeStatus
T = PlanNodeType
RECENT_SHARE = 0.15  # the newest plans are still in flight; older ones are done


class Stage(StrEnum):
    PLANNED = "planned"
    SCHEDULED = "scheduled"
    RETRYING = "retrying"
    PUBLISHED = "published"

    @staticmethod
    def for_plan(status: PlanStatus) -> tuple[Stage, Stage]:
        """The stages of a plan's two campaigns."""
        if status in {PlanStatus.DRAFT, PlanStatus.REVIEWED}:
            return Stage.PLANNED, Stage.PLANNED
        if status is PlanStatus.APPROVED:
            return Stage.SCHEDULED, Stage.SCHEDULED
        if status is PlanStatus.EXECUTING:
            return Stage.PUBLISHED, Stage.RETRYING
        return Stage.PUBLISHED, Stage.PUBLISHED


def plan_status(*, rng: random.Random, index: int, plans: int) -> PlanStatus:
    """Oldest plans complete (some archived); the newest are draft, reviewed, approved or
    executing, newest first. Plan 0 is always complete or archived, so it has published content."""
    recent = min(plans - 1, max(1, round(plans * RECENT_SHARE)))
    age = plans - 1 - index
    if age < recent:
        share = age / recent
        if share < 0.3:
            return PlanStatus.DRAFT
        if share < 0.45:
            return PlanStatus.REVIEWED
        return PlanStatus.APPROVED if share < 0.6 else PlanStatus.EXECUTING
    return PlanStatus.ARCHIVED if rng.random() < 0.12 else PlanStatus.COMPLETE


def objective_status(stages: tuple[Stage, ...]) -> PlanNodeStatus:
    if all(stage is Stage.PUBLISHED for stage in stages):
        return N.COMPLETE
    return N.PENDING if all(stage is Stage.PLANNED for stage in stages) else N.READY


NODE_STATUS: dict[Stage, dict[PlanNodeType, PlanNodeStatus]] = {
    Stage.PLANNED: {
        T.CAMPAIGN: N.PENDING,
        T.BLUEPRINT_INSTANCE: N.READY,
        T.POST_INTENT: N.PENDING,
        T.APPROVAL_GATE: N.BLOCKED,
        T.PUBLISH_JOB: N.PENDING,
    },
    Stage.SCHEDULED: {
        T.CAMPAIGN: N.READY,
        T.BLUEPRINT_INSTANCE: N.COMPLETE,
        T.POST_INTENT: N.READY,
        T.APPROVAL_GATE: N.COMPLETE,
        T.PUBLISH_JOB: N.READY,
    },
    Stage.RETRYING: {
        T.CAMPAIGN: N.READY,
        T.BLUEPRINT_INSTANCE: N.COMPLETE,
        T.POST_INTENT: N.READY,
        T.APPROVAL_GATE: N.COMPLETE,
        T.PUBLISH_JOB: N.FAILED,
    },
    Stage.PUBLISHED: dict.fromkeys(
        (T.CAMPAIGN, T.BLUEPRINT_INSTANCE, T.POST_INTENT, T.APPROVAL_GATE, T.PUBLISH_JOB),
        N.COMPLETE,
    ),
}


def node_status(stage: Stage, node_type: PlanNodeType) -> PlanNodeStatus:
    return NODE_STATUS[stage][node_type]


ASSET_STATUS = {
    Stage.PLANNED: AssetStatus.GENERATED,
    Stage.SCHEDULED: AssetStatus.APPROVED,
    Stage.RETRYING: AssetStatus.APPROVED,
    Stage.PUBLISHED: AssetStatus.PUBLISHED,
}
VARIANT_STATUS = {
    Stage.PLANNED: VariantStatus.READY,
    Stage.SCHEDULED: VariantStatus.APPROVED,
    Stage.RETRYING: VariantStatus.APPROVED,
    Stage.PUBLISHED: VariantStatus.PUBLISHED,
}
APPROVAL_STATUS = {
    Stage.PLANNED: ApprovalStatus.PENDING,
    Stage.SCHEDULED: ApprovalStatus.APPROVED,
    Stage.RETRYING: ApprovalStatus.APPROVED,
    Stage.PUBLISHED: ApprovalStatus.APPROVED,
}
PACKAGE_STATUS = {
    Stage.PLANNED: PackageStatus.QUEUED,
    Stage.SCHEDULED: PackageStatus.SCHEDULED,
    Stage.RETRYING: PackageStatus.QUEUED,
    Stage.PUBLISHED: PackageStatus.PUBLISHED,
}
# Only a package that went to publishing has a run (the service starts runs only then).
RUN_STATUS = {
    Stage.RETRYING: PublishRunStatus.FAILED,
    Stage.PUBLISHED: PublishRunStatus.SUCCEEDED,
}
