"""Persona inputs."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON


@strawberry.input(description="A new persona with its version 1.")
class CreatePersonaInput:
    name: str = strawberry.field(
        description="The agent name it speaks as (letters, digits, '_', '.', '-'; max 64); an "
        "agent key may only create its own."
    )
    system_prompt: str = strawberry.field(description="The core system prompt, 1-20000 chars.")
    traits: JSON | None = strawberry.field(
        default=None,
        description='A JSON object of at most 64 traits, e.g. {"humor_type": "dry"}; values '
        "are strings, numbers or booleans.",
    )
    behavioural_rules: list[str] | None = strawberry.field(
        default=None, description="At most 100 rules, in the order given."
    )
    description: str | None = None
    reason: str | None = strawberry.field(default=None, description='Default "first version".')


@strawberry.input(description="A new version of a persona: the parts given replace the current.")
class EditPersonaInput:
    reason: str = strawberry.field(description="Why this change: kept with the version.")
    system_prompt: str | None = strawberry.UNSET
    traits: JSON | None = strawberry.field(
        default=strawberry.UNSET, description="The whole new traits object (not a patch)."
    )
    behavioural_rules: list[str] | None = strawberry.field(
        default=strawberry.UNSET, description="The whole new list of rules."
    )
    description: str | None = strawberry.field(
        default=strawberry.UNSET, description="Changes the persona, not its versions."
    )
    base_version: int | None = strawberry.field(
        default=strawberry.UNSET,
        description="The version this edit was made from: CONFLICT if another version was "
        "made since (leave out to overwrite whatever is current).",
    )
