"""Plan graph types (seed 000, 3.2-3.3); their fields are held to app/model by tests."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from app.api.types.base import NodeType, node_type, to_many, to_one
from app.model.enums import (
    CreatedBy,
    ObjectiveTag,
    PlanNodeStatus,
    PlanNodeType,
    PlanStatus,
    Platform,
)


@node_type("Plan")
@strawberry.type(description="A planned batch of content for a time window (seed 000, 3.2.1).")
class Plan(NodeType):
    id: strawberry.ID
    name: str
    time_window_start: datetime | None
    time_window_end: datetime | None
    objective_tags: list[ObjectiveTag] | None
    target_platforms: list[Platform] | None
    status: PlanStatus
    summary: str | None
    constraints_ref: str | None
    created_by: CreatedBy
    created_at: datetime
    updated_at: datetime

    nodes = to_many("PlanNode", "The plan's nodes (HAS_NODE).")
    constraints = to_one("ConstraintsSnapshot", "The snapshot frozen at approval (CONSTRAINED_BY).")
    packages = to_many("PublishPackage", "Publish packages built for this plan (FOR_PLAN).")


@node_type("PlanNode")
@strawberry.type(description="An atomic node of the plan graph (seed 000, 3.2.2).")
class PlanNode(NodeType):
    id: strawberry.ID
    plan_id: strawberry.ID
    node_type: PlanNodeType
    title: str
    inputs: JSON | None
    summary: str | None
    status: PlanNodeStatus
    quality_score: int | None
    cost_estimate: float | None
    created_at: datetime
    updated_at: datetime

    plan = to_one("Plan", "The plan this node belongs to (HAS_NODE).")
    depends_on = to_many("PlanNode", "Nodes this node depends on (DEPENDS_ON).")
    produces = to_many("PlanNode", "Nodes this node produces (PRODUCES).")
    refines = to_many("PlanNode", "Nodes this node refines (REFINES).")
    requires_approval = to_many("PlanNode", "Approval gates it requires (REQUIRES_APPROVAL).")
    scheduled_for = to_many("PlanNode", "Publish jobs it is scheduled for (SCHEDULED_FOR).")
    dependents = to_many("PlanNode", "Nodes that depend on this one (DEPENDS_ON, incoming).")
    produced_by = to_many("PlanNode", "Nodes that produce this one (PRODUCES, incoming).")
    refined_by = to_many("PlanNode", "Nodes that refine this one (REFINES, incoming).")
    assets = to_many("Asset", "Assets made from this blueprint node (FROM_BLUEPRINT).")


@node_type("ConstraintsSnapshot")
@strawberry.type(description="Rules frozen when a plan was approved; immutable (seed 000, 3.3).")
class ConstraintsSnapshot(NodeType):
    id: strawberry.ID
    brandkit_version_id: str
    kb_version_id: str
    policies_version_id: str
    provider_config_version_id: str
    blueprint_set_version_id: str
    notes: str | None
    created_at: datetime
    updated_at: datetime

    plans = to_many("Plan", "Plans constrained by this snapshot (CONSTRAINED_BY).")
