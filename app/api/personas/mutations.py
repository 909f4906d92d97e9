"""Persona mutations: thin resolvers over app/domain/personas."""

from __future__ import annotations

import strawberry

from app.api.personas.inputs import CreatePersonaInput, EditPersonaInput
from app.api.record_mutations import creates, updates
from app.api.types.personas import Persona
from app.domain import personas


@strawberry.type
class PersonaMutations:
    create_persona = creates(
        personas.create_persona,
        Persona,
        CreatePersonaInput,
        "Create the client's persona of that name with its version 1; CONFLICT if the name is "
        "taken, VALIDATION naming the field for bad input.",
    )

    edit_persona = updates(
        personas.edit_persona,
        Persona,
        EditPersonaInput,
        "Save a new version of a persona; old versions never change. A core (prompt, traits, "
        "rules) equal to the current one saves no version (a retried edit; a new description "
        "alone changes the persona). Otherwise CONFLICT when baseVersion is not the current "
        "version.",
        id_name="persona_id",
    )
