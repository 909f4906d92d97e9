"""An agent's directives and runtime config overrides (seed 001 "Agent: identity, directives,
runtime config overrides"), as immutable numbered versions: each edit is a new version saying
who made it, when and why; the agent points at the one in force (CURRENT_CONFIG)."""

from __future__ import annotations

from neomodel import ArrayProperty, IntegerProperty, JSONProperty, StringProperty, ZeroOrOne

from app.model.facts import LabelFacts
from app.model.nodes import Record
from app.model.relationships import RelationshipFrom


class AgentConfigVersion(Record):
    """One state of an agent's directives and config overrides, never changed afterwards."""

    facts = LabelFacts(
        graphql="app.api.types.agent_config",
        roots=("agent_config_version", "agent_config_versions"),
    )

    agent_name = StringProperty(required=True, index=True)
    version = IntegerProperty(required=True)  # 1, 2, ... per agent (unique: migration 0036)
    directives = ArrayProperty(StringProperty(), required=True)
    config_overrides = JSONProperty(required=True)
    author = StringProperty(required=True)
    reason = StringProperty(required=True)

    agent = RelationshipFrom(
        "Agent", "HAS_CONFIG_VERSION", ZeroOrOne, doc="The agent it configures."
    )


AGENT_CONFIG_MODEL: tuple[type[Record], ...] = (AgentConfigVersion,)
