"""The model's shape as the query compiler needs it, read from the neomodel declarations."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, partial

from neomodel import (
    ArrayProperty,
    DateTimeProperty,
    JSONProperty,
    RelationshipFrom,
    StructuredNode,
)

from app.graph.fragments import DB_CLOCK, live
from app.model import MODEL
from app.model.nodes import Record


@dataclass(frozen=True)
class Relationship:
    name: str
    rel_type: str
    outgoing: bool
    target: str

    def pattern(self, source: str, target: str) -> str:
        """`(source)-[:TYPE]->(target:Label)` in the declared direction."""
        left, right = ("-", "->") if self.outgoing else ("<-", "-")
        return f"({source}){left}[:`{self.rel_type}`]{right}({target}:`{self.target}`)"


@dataclass(frozen=True)
class Entity:
    label: str
    properties: frozenset[str]
    datetimes: frozenset[str]
    jsons: frozenset[str]
    arrays: frozenset[str]
    choices: dict[str, frozenset[str]]
    relationships: dict[str, Relationship]
    # The Cypher condition over a variable that hides records from every read (forgotten or
    # expired memories: LabelFacts.forgettable).
    visible: Callable[[str], str] | None = None


def _entity(cls: type[StructuredNode]) -> Entity:
    properties = cls.defined_properties(aliases=False, rels=False)
    relationships = {}
    for name, definition in cls.defined_properties(properties=False, aliases=False).items():
        relationships[name] = Relationship(
            name=name,
            rel_type=definition.definition["relation_type"],
            outgoing=not isinstance(definition, RelationshipFrom)
            and definition.definition["direction"] == 1,
            target=definition._raw_class,
        )
    return Entity(
        label=cls.__name__,
        properties=frozenset(properties),
        datetimes=frozenset(n for n, p in properties.items() if isinstance(p, DateTimeProperty)),
        jsons=frozenset(n for n, p in properties.items() if isinstance(p, JSONProperty)),
        arrays=frozenset(n for n, p in properties.items() if isinstance(p, ArrayProperty)),
        choices={
            n: frozenset(p.choices) for n, p in properties.items() if getattr(p, "choices", None)
        },
        relationships=relationships,
        visible=partial(live, clock=DB_CLOCK) if cls.facts.forgettable else None,
    )


@cache
def entities() -> dict[str, Entity]:
    return {cls.__name__: _entity(cls) for cls in MODEL}


def entity(label: str | type[Record]) -> Entity:
    name = label if isinstance(label, str) else label.__name__
    return entities()[name]
