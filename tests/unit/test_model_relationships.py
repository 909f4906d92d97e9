"""Node types take their relationship fields from the model's relationships
(app/model/relationships.py, app/api/types/model_fields.py): a field of one record for a
`ZeroOrOne` relationship, else a list with first / where / orderBy; the description from the
relationship's doc; a relationship a type hides stays hidden; every node type held to its
model."""

import neomodel
import pytest
import strawberry
from neomodel import StringProperty, ZeroOrOne
from strawberry.types.base import get_object_definition

from app.api.types.base import every_node_type
from app.api.types.model_fields import shown_relationships, with_model_fields
from app.api.types.related import to_one
from app.model import MODEL
from app.model.nodes import Record
from app.model.relationships import RelationshipFrom, RelationshipTo, description, holds_one


class RelationshipProbe(Record):
    """A label of no migration and no GraphQL type: only these tests declare it."""

    title = StringProperty()

    plan = RelationshipFrom("Plan", "PROBED_BY", ZeroOrOne, doc="The plan it probes.")
    assets = RelationshipTo("Asset", "PROBES", doc="Assets it probes.")
    internal = neomodel.RelationshipTo("Asset", "INTERNAL")  # no doc: the type hides it
    replaced = RelationshipFrom(
        "Lesson", "SUPERSEDES", doc="Lessons replacing it (SUPERSEDES, incoming)."
    )


def probe_block(hidden: frozenset[str], probe: type | None = None) -> list[str]:
    """The probe's type as the schema prints it, built as node_type builds a type."""

    probe = probe or type("ProbeNode", (), {})
    probe.__annotations__ = with_model_fields(probe, RelationshipProbe, hidden=hidden)
    node = strawberry.type(probe)
    query = strawberry.type(type("Query", (), {"__annotations__": {"probe": node | None}}))
    query.probe = None
    sdl = str(strawberry.Schema(query=query))
    return sdl[sdl.index("type ProbeNode {") :].split("}")[0].split("\n")[1:-1]


def test_relationship_fields_follow_the_scalars_in_the_model_s_order() -> None:
    arguments = "(first: Int! = 100, where: RecordWhere = null, orderBy: RecordOrder = null)"
    assert probe_block(frozenset({"internal"})) == [
        "  id: ID!",
        "  title: String",
        "  createdAt: DateTime!",
        "  updatedAt: DateTime!",
        "",
        '  """The plan it probes (PROBED_BY)."""',
        "  plan: Plan",
        "",
        '  """Assets it probes (PROBES)."""',
        f"  assets{arguments}: [Asset!]!",
        "",
        '  """Lessons replacing it (SUPERSEDES, incoming)."""',
        f"  replaced{arguments}: [Lesson!]!",
    ]


def test_a_relationship_field_the_class_declares_keeps_its_place_and_description() -> None:
    class ProbeNode:
        @strawberry.field(description="Computed, after the relationships.")
        def score(self) -> int:
            return 1

        plan = to_one("Plan", "Declared by the type.")

    block = probe_block(frozenset({"internal", "assets", "replaced"}), ProbeNode)
    assert block[-5:] == [
        '  """Declared by the type."""',
        "  plan: Plan",
        "",
        '  """Computed, after the relationships."""',
        "  score: Int!",
    ]


def test_a_hidden_relationship_stays_hidden() -> None:
    block = "\n".join(probe_block(frozenset({"internal", "assets"})))
    assert "plan: Plan" in block and "replaced(" in block
    assert "assets" not in block and "internal" not in block


def test_a_shown_relationship_without_a_doc_is_refused() -> None:
    class ProbeNode:
        pass

    with pytest.raises(TypeError, match="the relationship internal has no description"):
        with_model_fields(ProbeNode, RelationshipProbe)


def test_the_description_adds_the_relationship_type_unless_the_doc_names_it() -> None:
    assert description(RelationshipProbe.plan) == "The plan it probes (PROBED_BY)."
    assert description(RelationshipProbe.replaced) == "Lessons replacing it (SUPERSEDES, incoming)."
    assert description(RelationshipProbe.internal) is None
    assert holds_one(RelationshipProbe.plan) and not holds_one(RelationshipProbe.assets)


@pytest.mark.parametrize("label", list(every_node_type()))
def test_each_node_type_shows_its_model_s_relationships_in_order(label: str) -> None:
    node = every_node_type()[label]
    (model,) = [cls for cls in MODEL if cls.__name__ == label]
    fields = {f.python_name: f for f in get_object_definition(node, strict=True).fields}
    relationships = shown_relationships(model, node.__hidden__)
    names = [
        name for name in fields if name in model.defined_properties(properties=False, aliases=False)
    ]
    assert names == list(relationships)
    for name, relationship in relationships.items():
        field = fields[name]
        assert field.description == description(relationship), (label, name)
        many = {argument.python_name for argument in field.arguments} == {
            "first",
            "where",
            "order_by",
        }
        assert many is not holds_one(relationship), (label, name)
