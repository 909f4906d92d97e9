"""Engagement and performance types (seed 000, 6); fields from app/model."""

from __future__ import annotations

from app.api.types.base import NodeType, node_type


@node_type("EngagementEvent", "An action taken or observed, and its outcome (seed 000, 6.2).")
class EngagementEvent(NodeType): ...


@node_type("PerformanceMetric", "A metric value for a time window (seed 000, 6.3).")
class PerformanceMetric(NodeType): ...
