"""Personas (seed 003) and their versions; fields from app/model."""

from __future__ import annotations

import strawberry

from app.api.types.base import NodeType, node_type


@node_type(
    "Persona",
    "A persona (seed 003): the core personality an agent speaks with, the same for every "
    "subject, edited by new immutable versions. Its name is the agent name it speaks as: its "
    "relationships (relationship), sessions and procedures are that agent's.",
)
class Persona(NodeType):
    name: str = strawberry.field(description="The agent name it speaks as; unique per client.")


@node_type(
    "PersonaVersion",
    "One immutable state of a persona's core: system prompt, traits and behavioural rules, "
    "who made it, when and why.",
)
class PersonaVersion(NodeType):
    content_sha256: str = strawberry.field(
        description="SHA-256 of the core (prompt, traits, rules): an edit that keeps it saves "
        "nothing."
    )
