"""Persona reads beyond the root fields: personaContext."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.personas import outputs as o
from app.api.resolve import run
from app.domain import personas

DEFAULT_BUDGET = 2_000


@strawberry.type
class PersonaQueries:
    @strawberry.field(
        description="The composite prompt of a persona (by name) for a subject (a memory "
        "namespace segment): core personality, relationship context, long-term facts about the "
        "subject, the latest summary of each recent session with the persona and the persona's "
        "procedures, packed in that order within tokenBudget, with the ids used. The "
        "relationship's memorySettings are honoured (remember_personal_facts, "
        "remember_past_conversations, auto_recall_depth). NOT_FOUND for an unknown persona."
    )
    async def persona_context(
        self,
        info: Info,
        subject: str,
        persona: str,
        token_budget: int = DEFAULT_BUDGET,
        version: int | None = None,
    ) -> o.PersonaContextResult:
        found = await run(
            info,
            personas.persona_context,
            subject=subject,
            persona=persona,
            token_budget=token_budget,
            version=version,
        )
        return o.persona_context(found)
