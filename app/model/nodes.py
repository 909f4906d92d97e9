"""The graph model, declared once: labels, properties and relationships of every record.

The classes are declarations only (the service runs Cypher through its own executor); tests hold
the migrations in cypher/schema and the GraphQL types to them.
"""

from __future__ import annotations

from neomodel import (
    ArrayProperty,
    BooleanProperty,
    DateTimeProperty,
    StringProperty,
    StructuredNode,
)

from app.model.enums import CreatedBy, ObjectiveTag, PlanStatus, Platform, Role


def _choices(enum: type) -> dict[str, str]:
    return {member.value: member.value for member in enum}  # type: ignore[attr-defined]


class Record(StructuredNode):
    """Every node: a UUID, the owning client and timestamps."""

    __abstract_node__ = True
    id = StringProperty(unique_index=True, required=True)  # type: ignore[assignment]
    client_id = StringProperty(index=True, required=True)
    created_at = DateTimeProperty(required=True)
    updated_at = DateTimeProperty(required=True)


class Client(Record):
    name = StringProperty(unique_index=True, required=True)


class ApiKey(Record):
    key_hash = StringProperty(unique_index=True, required=True)
    prefix = StringProperty(required=True)
    role = StringProperty(required=True, choices=_choices(Role))
    agent_name = StringProperty()
    revoked = BooleanProperty(default=False)


class Plan(Record):
    name = StringProperty(required=True)
    time_window_start = DateTimeProperty()
    time_window_end = DateTimeProperty()
    objective_tags = ArrayProperty(StringProperty(choices=_choices(ObjectiveTag)))
    target_platforms = ArrayProperty(StringProperty(choices=_choices(Platform)))
    status = StringProperty(required=True, choices=_choices(PlanStatus), index=True)
    summary = StringProperty()
    constraints_ref = StringProperty()
    created_by = StringProperty(required=True, choices=_choices(CreatedBy))


MODEL: tuple[type[Record], ...] = (Client, ApiKey, Plan)
