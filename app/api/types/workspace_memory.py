"""Seed 002's workspace memory: the client's shared context; fields from app/model."""

from __future__ import annotations

import strawberry

from app.api.types.base import NodeType, node_type


@node_type(
    "WorkspaceMemory",
    "One keyed value of the context every agent of the client shares (seed 002's workspace "
    "memory): a brand voice, an ideal customer profile, a preference or a custom value.",
)
class WorkspaceMemory(NodeType):
    key: str = strawberry.field(description="Unique per client; writing it again replaces.")
    version: int = strawberry.field(description="1, then one more per change of the value.")
