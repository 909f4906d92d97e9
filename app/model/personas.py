"""Personas (seed 003): the core personality an agent speaks with, the same for every subject,
edited by new immutable numbered versions. The relationship context per subject stays where it
was, on (MemorySubject)-[:RELATES_TO]->(Agent): a persona's name is the agent name it speaks
as, so its procedures, sessions and relationships are those of that agent."""

from __future__ import annotations

from neomodel import ArrayProperty, IntegerProperty, JSONProperty, StringProperty, ZeroOrOne

from app.model.facts import LabelFacts, Searchable
from app.model.nodes import Record
from app.model.relationships import RelationshipFrom, RelationshipTo


class Persona(Record):
    """The stable identity of a persona; its core personality is in its versions."""

    facts = LabelFacts(
        graphql="app.api.types.personas",
        roots=("persona", "personas"),
        searchable=Searchable(("name", "description")),
    )

    name = StringProperty(required=True)  # the agent name it speaks as; unique per client
    description = StringProperty()
    current_version = IntegerProperty(required=True)
    current_version_id = StringProperty(required=True)

    versions = RelationshipTo(
        "PersonaVersion", "HAS_VERSION", doc="Every version, the first one first."
    )
    current = RelationshipTo(
        "PersonaVersion", "CURRENT_VERSION", ZeroOrOne, doc="The version in force now."
    )


class PersonaVersion(Record):
    """One immutable state of a persona's core: system prompt, traits, behavioural rules; who
    made it and why."""

    facts = LabelFacts(
        graphql="app.api.types.personas",
        roots=("persona_version", "persona_versions"),
    )

    persona_id = StringProperty(required=True, index=True)
    version = IntegerProperty(required=True)
    system_prompt = StringProperty(required=True)
    traits = JSONProperty()  # {trait: value}, e.g. {"humor_type": "dry"}
    behavioural_rules = ArrayProperty(StringProperty())
    content_sha256 = StringProperty(required=True)  # of the core: a repeated edit saves nothing
    author = StringProperty(required=True)
    reason = StringProperty(required=True)

    persona = RelationshipFrom(
        "Persona", "HAS_VERSION", ZeroOrOne, doc="The persona it is a version of."
    )


PERSONAS_MODEL: tuple[type[Record], ...] = (Persona, PersonaVersion)
