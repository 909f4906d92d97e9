"""An agent's directives and runtime config overrides: each edit a new version (the current one
and the history are read as Agent.config and Agent.configVersions)."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from app.api.record_mutations import creates
from app.api.types.agent_config import AgentConfigVersion
from app.domain import agents


@strawberry.input(
    description="An edit of an agent's configuration (the API key's agent by default, created "
    "on first use): directives and configOverrides each replace the current ones as a whole, "
    "a field left out keeps them; reason says why. With expectedVersion (0: none saved yet) "
    "the edit is refused with CONFLICT when another edit came first."
)
class AgentConfigInput:
    reason: str
    agent_name: str | None = None
    directives: list[str] | None = strawberry.field(
        default=None, description="At most 100, each 1-2000 characters; [] clears them."
    )
    config_overrides: JSON | None = strawberry.field(
        default=None, description="A JSON object of runtime settings; {} clears them."
    )
    expected_version: int | None = None


@strawberry.type
class AgentConfigMutations:
    set_agent_config = creates(
        agents.set_agent_config,
        AgentConfigVersion,
        AgentConfigInput,
        "Save a new version of an agent's directives and config overrides (who, when, why "
        "kept; old versions never change) and make it the agent's config. An edit equal to "
        "the current version saves nothing and answers with it.",
        apart=("agent_name",),
    )
