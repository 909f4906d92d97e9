"""Node types take their fields from the model class (app/api/types/model_fields.py): the
mapping, the order, hidden properties and relationships, the relationship fields, and every node
type held to its model."""

from datetime import datetime

import pytest
import strawberry
from neomodel import (
    ArrayProperty,
    BooleanProperty,
    DateProperty,
    DateTimeProperty,
    FloatProperty,
    IntegerProperty,
    JSONProperty,
    RelationshipTo,
    StringProperty,
)
from strawberry.scalars import JSON
from strawberry.types.base import get_object_definition

from app.api.types.base import every_node_type
from app.api.types.model_fields import scalar_annotation, shown_properties, with_model_fields
from app.model import MODEL
from app.model import enums as e
from app.model.nodes import EnumProperty, Record


class FieldProbe(Record):
    """A label of no migration and no GraphQL type: only these tests declare it."""

    name = StringProperty(required=True)
    owner_id = StringProperty()
    plan_id = StringProperty(required=True)
    platform = EnumProperty(e.Platform, required=True)
    tags = ArrayProperty(StringProperty())
    ref_ids = ArrayProperty(StringProperty())
    score = FloatProperty()
    count = IntegerProperty(required=True)
    flag = BooleanProperty()
    payload = JSONProperty()
    seen_at = DateTimeProperty()
    secret = StringProperty()

    plan = RelationshipTo("Plan", "PROBES")  # neomodel's own: no doc, so it must be hidden


# What the probe's type hides: `secret`, and `plan`, a relationship with no doc to show.
PROBE_HIDDEN = frozenset({"secret", "plan"})


def probe_type() -> type:
    """A fresh class as a type module writes it: what the model cannot say is declared (a
    description, and owner_id as String where the mapping would say ID)."""

    class ProbeNode:
        name: str = strawberry.field(description="Declared: keeps its description.")
        owner_id: str | None

    return ProbeNode


def test_annotations_follow_the_mapping_in_the_model_s_order() -> None:
    annotations = with_model_fields(probe_type(), FieldProbe, hidden=PROBE_HIDDEN)
    assert annotations == {
        "id": strawberry.ID,
        "name": str,
        "owner_id": str | None,
        "plan_id": strawberry.ID,
        "platform": e.Platform,
        "tags": list[str] | None,
        "ref_ids": list[strawberry.ID] | None,
        "score": float | None,
        "count": int,
        "flag": bool | None,
        "payload": JSON | None,
        "seen_at": datetime | None,
        "created_at": datetime,
        "updated_at": datetime,
    }


def test_the_built_type_prints_as_the_model_says_and_hides_what_it_must() -> None:
    probe = probe_type()
    probe.__annotations__ = with_model_fields(probe, FieldProbe, hidden=PROBE_HIDDEN)
    node = strawberry.type(probe)
    query = strawberry.type(type("Query", (), {"__annotations__": {"probe": node | None}}))
    query.probe = None

    sdl = str(strawberry.Schema(query=query))
    block = sdl[sdl.index("type ProbeNode {") :].split("}")[0]
    assert block.split("\n")[1:-1] == [
        "  id: ID!",
        "",
        '  """Declared: keeps its description."""',
        "  name: String!",
        "  ownerId: String",
        "  planId: ID!",
        "  platform: Platform!",
        "  tags: [String!]",
        "  refIds: [ID!]",
        "  score: Float",
        "  count: Int!",
        "  flag: Boolean",
        "  payload: JSON",
        "  seenAt: DateTime",
        "  createdAt: DateTime!",
        "  updatedAt: DateTime!",
    ]
    assert "secret" not in block and "clientId" not in block


def test_a_property_of_no_known_kind_is_refused() -> None:
    with pytest.raises(TypeError, match="no GraphQL type for the model property birthday"):
        scalar_annotation("birthday", DateProperty())


@pytest.mark.parametrize("label", list(every_node_type()))
def test_each_node_type_shows_its_model_s_properties_in_order(label: str) -> None:
    node = every_node_type()[label]
    (model,) = [cls for cls in MODEL if cls.__name__ == label]
    fields = get_object_definition(node, strict=True).fields
    scalars = [f.python_name for f in fields if f.base_resolver is None]
    assert scalars == list(shown_properties(model, node.__hidden__))
    relationships = set(model.defined_properties(properties=False, aliases=False))
    assert relationships <= {f.python_name for f in fields if f.base_resolver is not None}
