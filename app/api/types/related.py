"""Relationship fields: a list of related records (to_many, with first / where / orderBy) or at
most one (to_one). The compiled query applies the arguments; app/api/read/fast_fields installs
the resolvers that read the rows. Node types take them from the model's relationships
(app/api/types/model_fields.py)."""

# No `from __future__ import annotations` here: the resolver factories below build their
# annotations from values at run time.
from datetime import datetime
from enum import Enum
from types import GenericAlias
from typing import Annotated, Any, Optional

import strawberry
from neomodel import RelationshipDefinition

from app.model import relationships
from app.model.labels import GRAPHQL_MODULES


@strawberry.enum(description="Order of related or listed records.")
class RecordOrder(Enum):
    CREATED_AT_DESC = "CREATED_AT_DESC"
    CREATED_AT_ASC = "CREATED_AT_ASC"
    UPDATED_AT_DESC = "UPDATED_AT_DESC"
    UPDATED_AT_ASC = "UPDATED_AT_ASC"


@strawberry.input(description="Filters; each applies only to records that have that field.")
class RecordWhere:
    ids: list[strawberry.ID] | None = None
    status_in: list[str] | None = strawberry.field(
        default=None, description='Status values, e.g. ["ready", "blocked"]'
    )
    created_after: datetime | None = None
    created_before: datetime | None = None
    updated_after: datetime | None = None
    plan_id: strawberry.ID | None = None
    asset_id: strawberry.ID | None = None
    package_id: strawberry.ID | None = None
    platform: str | None = None
    node_type: str | None = None
    asset_type: str | None = None
    name_contains: str | None = None
    title_contains: str | None = None
    kind: str | None = strawberry.field(
        default=None, description="Constraint documents and versions: e.g. brandkit."
    )
    document_id: strawberry.ID | None = None
    version: int | None = strawberry.field(
        default=None, description="A constraint document's version number."
    )
    period: str | None = strawberry.field(
        default=None, description="Client snapshots: weekly, monthly or custom."
    )
    session_type: str | None = strawberry.field(
        default=None, description="Memory sessions: e.g. conversation or task."
    )


def lazy(label: str) -> Any:
    return Annotated[label, strawberry.lazy(GRAPHQL_MODULES[label])]


class NotInstalled(RuntimeError):
    """A relationship field resolved before app/api/read/fast_fields installed its resolver."""

    def __init__(self, label: str) -> None:
        super().__init__(f"no resolver installed for a field of {label} (fast_fields.install)")


def to_many(label: str, description: str) -> Any:
    """A list field over a declared relationship: its arguments and type."""

    def arguments(
        first: int = 100,
        where: Optional[RecordWhere] = None,  # noqa: UP045 - evaluated at run time
        order_by: Optional[RecordOrder] = None,  # noqa: UP045
    ) -> Any:
        raise NotInstalled(label)

    return strawberry.field(
        resolver=arguments, graphql_type=GenericAlias(list, lazy(label)), description=description
    )


def to_one(label: str, description: str) -> Any:
    """A field over a declared relationship to at most one record (see to_many)."""

    def no_arguments() -> Any:
        raise NotInstalled(label)

    return strawberry.field(
        resolver=no_arguments, graphql_type=lazy(label) | None, description=description
    )


def relationship_field(name: str, relationship: RelationshipDefinition) -> Any:
    """The field of a model relationship: to_one where it reaches at most one record, else
    to_many, described as the model describes it."""
    text = relationships.description(relationship)
    if text is None:
        raise TypeError(
            f"the relationship {name} has no description: declare it with "
            "app.model.relationships (doc=...), or hide it (__hidden__)"
        )
    field = to_one if relationships.holds_one(relationship) else to_many
    return field(relationships.target(relationship), text)
