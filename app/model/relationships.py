"""Relationships as the model declares them: neomodel's RelationshipTo and RelationshipFrom,
each with `doc`, what its GraphQL field shows (app/api/types/model_fields.py derives the field).
The field's description is the doc with the relationship type: "Concrete versions per platform
(HAS_VARIANT)." for doc="Concrete versions per platform."; a doc that names the type itself
("... (SUPERSEDES, incoming).") is the description as it is. A relationship to at most one
record says so with neomodel's cardinality (`ZeroOrOne`): its field is one record or null;
every other relationship's field is a list."""

from __future__ import annotations

from typing import ClassVar

import neomodel
from neomodel import One, RelationshipDefinition, RelationshipManager, ZeroOrMore, ZeroOrOne
from neomodel.util import RelationshipDirection


class _Documented(RelationshipDefinition):
    """A relationship in the direction its class names, with what its GraphQL field shows."""

    direction: ClassVar[RelationshipDirection]

    def __init__(
        self,
        target: str,
        rel_type: str,
        cardinality: type[RelationshipManager] = ZeroOrMore,
        *,
        doc: str,
    ) -> None:
        RelationshipDefinition.__init__(self, rel_type, target, self.direction, cardinality)
        self.doc = doc


class RelationshipTo(_Documented, neomodel.RelationshipTo):
    direction = RelationshipDirection.OUTGOING


class RelationshipFrom(_Documented, neomodel.RelationshipFrom):
    direction = RelationshipDirection.INCOMING


def description(relationship: RelationshipDefinition) -> str | None:
    """The GraphQL field's description (see the module's note); None for a relationship
    declared with neomodel's own classes, which a node type must hide (`__hidden__`)."""
    doc: str | None = getattr(relationship, "doc", None)
    rel_type = relationship.definition["relation_type"]
    if doc is None or f"({rel_type}" in doc:
        return doc
    return f"{doc.removesuffix('.')} ({rel_type})."


def holds_one(relationship: RelationshipDefinition) -> bool:
    """Whether the relationship reaches at most one record."""
    return issubclass(relationship.manager, (ZeroOrOne, One))


def target(relationship: RelationshipDefinition) -> str:
    """The label at the other end."""
    return str(relationship._raw_class)
