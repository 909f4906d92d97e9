"""Personas (seed 003): a core personality in immutable numbered versions, and the composite
prompt of a persona for a subject (core, relationship context, long-term facts, recent
sessions, procedures) within a token budget."""

from app.domain.personas.context import PersonaContext, persona_context
from app.domain.personas.repository import create_persona, edit_persona

__all__ = ["PersonaContext", "create_persona", "edit_persona", "persona_context"]
