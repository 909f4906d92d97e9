"""Inputs of the plan graph mutations; the domain validates every value before writing."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from app.api.plans.inputs import CreatePlanInput
from app.model.enums import PlanEdgeType, PlanNodeStatus, PlanNodeType


@strawberry.input(description="A new node of an existing plan (seed 000, 3.2.2).")
class CreatePlanNodeInput:
    plan_id: strawberry.ID
    node_type: PlanNodeType
    title: str = strawberry.field(description="1-200 characters.")
    inputs: JSON | None = strawberry.field(default=None, description="A JSON object.")
    summary: str | None = strawberry.field(default=None, description="At most 2000 characters.")
    status: PlanNodeStatus | None = strawberry.field(
        default=None, description="PENDING (the default), READY or BLOCKED."
    )
    quality_score: int | None = strawberry.field(default=None, description="0-100.")
    cost_estimate: float | None = strawberry.field(default=None, description=">= 0.")


@strawberry.input(
    description="Only the fields given are changed; null clears an optional one. The status "
    "changes only through transitionPlanNode."
)
class UpdatePlanNodeInput:
    node_type: PlanNodeType | None = strawberry.UNSET
    title: str | None = strawberry.UNSET
    inputs: JSON | None = strawberry.UNSET
    summary: str | None = strawberry.UNSET
    quality_score: int | None = strawberry.UNSET
    cost_estimate: float | None = strawberry.UNSET


@strawberry.input(description="A typed edge between two nodes of the same plan.")
class AddPlanEdgeInput:
    from_node_id: strawberry.ID
    to_node_id: strawberry.ID
    edge_type: PlanEdgeType


@strawberry.input(description="A node of a new plan graph, named by a key local to the request.")
class PlanGraphNodeInput:
    key: str = strawberry.field(description="1-100 characters, unique within the request.")
    node_type: PlanNodeType
    title: str
    inputs: JSON | None = None
    summary: str | None = None
    status: PlanNodeStatus | None = None
    quality_score: int | None = None
    cost_estimate: float | None = None


@strawberry.input(description="An edge of a new plan graph between two node keys.")
class PlanGraphEdgeInput:
    from_key: str
    to_key: str
    edge_type: PlanEdgeType


@strawberry.input(description="A plan with its nodes and edges, written all or nothing.")
class CreatePlanGraphInput:
    plan: CreatePlanInput
    nodes: list[PlanGraphNodeInput] = strawberry.field(default_factory=list)
    edges: list[PlanGraphEdgeInput] = strawberry.field(default_factory=list)


@strawberry.input(
    description="What an approval freezes (seed 000, 3.3): each kind's current constraint "
    "version unless a version id of the client's document of that kind is named here."
)
class ConstraintsSnapshotInput:
    brandkit_version_id: str | None = None
    kb_version_id: str | None = None
    policies_version_id: str | None = None
    provider_config_version_id: str | None = None
    blueprint_set_version_id: str | None = None
    notes: str | None = None
