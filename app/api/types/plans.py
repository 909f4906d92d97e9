"""Plan graph types (seed 000, 3.2-3.3); fields from app/model."""

from __future__ import annotations

from app.api.types.base import NodeType, node_type


@node_type("Plan", "A planned batch of content for a time window (seed 000, 3.2.1).")
class Plan(NodeType): ...


@node_type("PlanNode", "An atomic node of the plan graph (seed 000, 3.2.2).")
class PlanNode(NodeType): ...


@node_type(
    "ConstraintsSnapshot", "Rules frozen when a plan was approved; immutable (seed 000, 3.3)."
)
class ConstraintsSnapshot(NodeType):
    # Versions of the caller's own documents, not records of this graph.
    brandkit_version_id: str
    kb_version_id: str
    policies_version_id: str
    provider_config_version_id: str
    blueprint_set_version_id: str
