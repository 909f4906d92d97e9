"""personaContext's result: the composite prompt, its sections and lines, and what it used."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
from strawberry.scalars import JSON

from app.api.types.personas import Persona, PersonaVersion
from app.domain.personas import PersonaContext
from app.domain.personas.prompt import Section
from app.model.enums import PersonaSection


@strawberry.type(description="One line of the composite prompt.")
class PersonaContextLine:
    text: str
    record_id: strawberry.ID | None = strawberry.field(
        description="The record it says: the persona version for core lines, a memory record "
        "for facts, session summaries and procedures; null for the relationship context."
    )
    tokens: int = strawberry.field(description="Estimated tokens, its newline included.")


@strawberry.type(
    description="A section of the composite prompt: its header and the lines that fit."
)
class PersonaContextSection:
    section: PersonaSection
    title: str = strawberry.field(description="The header line, e.g. === CORE IDENTITY ===.")
    lines: list[PersonaContextLine]
    tokens: int = strawberry.field(description="The header's and the lines' tokens.")


@strawberry.type(description="The subject's relationship context with the persona's agent.")
class PersonaRelationship:
    type: str
    custom_prompt: str | None
    memory_settings: JSON | None
    sessions: int
    last_contact: datetime | None
    started_at: datetime | None


@strawberry.type(
    description="A persona's composite prompt for a subject (seed 003's call initialisation): "
    "core personality, relationship context, long-term facts, recent sessions and procedures, "
    "packed in that order within tokenBudget."
)
class PersonaContextResult:
    persona: Persona
    version: PersonaVersion = strawberry.field(description="The version whose core was used.")
    subject: str
    display_name: str | None = strawberry.field(description="The subject's, if it has one.")
    relationship: PersonaRelationship | None = strawberry.field(
        description="Null when the subject has none with the persona (setRelationship)."
    )
    prompt: str = strawberry.field(description="The sections' headers and lines, one per line.")
    sections: list[PersonaContextSection] = strawberry.field(
        description="The sections with at least one line that fit, in packing order."
    )
    token_budget: int
    tokens_used: int
    omitted: int = strawberry.field(description="Lines left out: they did not fit.")
    used_ids: list[strawberry.ID] = strawberry.field(
        description="The persona version and memory records the prompt used, in prompt order."
    )


def _section(section: Section) -> PersonaContextSection:
    lines = [
        PersonaContextLine(
            text=line.text,
            record_id=None if line.record_id is None else strawberry.ID(line.record_id),
            tokens=line.tokens,
        )
        for line in section.lines
    ]
    return PersonaContextSection(
        section=section.section, title=section.title, lines=lines, tokens=section.tokens
    )


def _relationship(found: dict[str, Any] | None) -> PersonaRelationship | None:
    if found is None:
        return None
    return PersonaRelationship(
        type=found["type"],
        custom_prompt=found.get("custom_prompt"),
        memory_settings=found.get("memory_settings"),
        sessions=int(found.get("sessions") or 0),
        last_contact=found.get("last_contact"),
        started_at=found.get("started_at"),
    )


def persona_context(found: PersonaContext) -> PersonaContextResult:
    packed = found.packed
    return PersonaContextResult(
        persona=Persona.from_row(found.persona),
        version=PersonaVersion.from_row(found.version),
        subject=found.subject,
        display_name=found.display_name,
        relationship=_relationship(found.relationship),
        prompt=packed.prompt,
        sections=[_section(section) for section in packed.sections],
        token_budget=found.token_budget,
        tokens_used=packed.budget.used,
        omitted=packed.budget.omitted,
        used_ids=[strawberry.ID(record_id) for record_id in packed.used_ids],
    )
