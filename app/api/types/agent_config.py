"""An agent's directives and runtime config overrides, as versions (seed 001); fields from
app/model."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from app.api.types.base import NodeType, node_type


@node_type(
    "AgentConfigVersion",
    "One immutable version of an agent's directives and runtime config overrides: who made "
    "it (author), when (createdAt) and why (reason). The agent's `config` is the newest.",
)
class AgentConfigVersion(NodeType):
    version: int = strawberry.field(description="1, 2, ... per agent, in edit order.")
    directives: list[str] = strawberry.field(
        description="Ordered directives the agent works under (constraints, best practices)."
    )
    config_overrides: JSON = strawberry.field(
        description="Runtime settings overriding the defaults (a JSON object)."
    )
    author: str = strawberry.field(description="Who made it: role and agent name or key id.")
