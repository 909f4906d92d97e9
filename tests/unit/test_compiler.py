"""The selection compiler: generated Cypher is scoped, parameterised and follows the model."""

from __future__ import annotations

import pytest

from app.api.read import graph_queries  # noqa: F401 - registers the node types
from app.api.types.base import GRAPHQL_NAMES, NODE_TYPES
from app.domain.kernel.errors import ValidationFailed
from app.graph.compiler import Compiler, connection_query, get_query
from app.graph.registry import entities
from app.graph.selection import Field
from app.model import MODEL


def field(name: str, *children: Field, alias: str | None = None, **arguments: object) -> Field:
    return Field(name=name, alias=alias, arguments=arguments, children=children)


def compiler() -> Compiler:
    return Compiler(client_id="c-1", names=GRAPHQL_NAMES)


def test_nested_selection_compiles_to_one_query_with_scoped_subqueries() -> None:
    c = compiler()
    query = get_query(
        c,
        "Plan",
        [
            field("name"),
            field(
                "nodes",
                field("title"),
                field("assets", field("variants", field("approvals", field("status")))),
                first="5",
                where={"statusIn": ["READY"]},
            ),
        ],
    )
    assert query.startswith("MATCH (n0:`Plan` {id: $id, client_id: $client_id})")
    assert query.count("COLLECT {") == 4
    assert query.count(".client_id = $client_id") == 4
    assert "(n0)-[:`HAS_NODE`]->(n1:`PlanNode`)" in query
    assert (
        "(n2)-[:`FROM_BLUEPRINT`]->" not in query
        and "(n1)<-[:`FROM_BLUEPRINT`]-(n2:`Asset`)" in query
    )
    assert "(n3)<-[:`APPROVES`]-(n4:`ApprovalRecord`)" in query
    assert c.params["client_id"] == "c-1"
    assert 5 in c.params.values() and ["ready"] in c.params.values()
    assert "READY" not in query and "'" not in query


def test_aliases_key_subqueries_and_unknown_fields_are_ignored() -> None:
    c = compiler()
    query = get_query(
        c,
        "Asset",
        [
            field("variants", alias="ig", where={"platform": "IG"}),
            field("__typename"),
            field("variants"),
        ],
    )
    assert "`ig`: COLLECT" in query and "`variants`: COLLECT" in query
    assert "__typename" not in query


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ({"statusIn": ["nope"]}, "status"),
        ({"planId": "x"}, "no 'plan_id'"),
        ({"drop": 1}, "unknown"),
    ],
)
def test_bad_filters_are_validation_errors(where: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationFailed, match=message):
        connection_query(compiler(), "Plan", [field("name")], where=where, ascending=False)


def test_first_is_bounded() -> None:
    with pytest.raises(ValidationFailed, match="first"):
        get_query(compiler(), "Plan", [field("nodes", first="5000")])


def test_every_model_label_has_a_graphql_type_with_the_model_fields() -> None:
    internal = {"client_id"}
    for cls in MODEL:
        if cls.__name__ in {"Client", "ApiKey"}:
            continue
        node = NODE_TYPES[cls.__name__]
        names = {f.python_name for f in node.__strawberry_definition__.fields}  # type: ignore[attr-defined]
        model = entities()[cls.__name__]
        # A type hides a property only by naming it (e.g. content a resolver reads for it).
        assert model.properties - internal - node.__hidden__ <= names, cls.__name__
        assert set(model.relationships) <= names, cls.__name__


def test_datetimes_travel_as_text_and_parse_back() -> None:
    from datetime import UTC, datetime, timedelta, timezone

    from app.graph.values import parse_datetime

    query = get_query(compiler(), "Plan", [field("createdAt"), field("name")])
    assert "created_at: toString(n0.created_at)" in query and ".name" in query
    assert parse_datetime("2026-11-25T22:01:15.739588123Z") == datetime(
        2026, 11, 25, 22, 1, 15, 739588, tzinfo=UTC
    )
    assert parse_datetime("2026-02-01T00:00:00+01:00") == datetime(
        2026, 2, 1, tzinfo=timezone(timedelta(hours=1))
    )
    assert parse_datetime("2026-02-01T00:00:00.5Z").microsecond == 500000


def test_every_relationship_field_gets_a_direct_resolver() -> None:
    from app.api.read import fast_fields
    from app.api.schema import schema

    expected = sum(
        len(entities()[label].relationships) for label in NODE_TYPES if label in entities()
    )
    assert fast_fields.install(schema) == expected
    plan_nodes = schema._schema.type_map["Plan"].fields["nodes"]  # type: ignore[union-attr]
    assert plan_nodes.resolve.__module__ == "app.api.read.fast_fields"
    assert set(plan_nodes.args) == {"first", "where", "orderBy"}


def test_a_field_selected_twice_under_one_key_is_merged() -> None:
    query = get_query(
        compiler(), "Plan", [field("nodes", field("title")), field("nodes", field("status"))]
    )
    assert query.count("`nodes`: COLLECT") == 1
    assert ".title" in query and ".status" in query


def test_no_relationship_field_keeps_its_declaring_stub() -> None:
    """to_many / to_one only declare a field (its arguments and type); the executable schema
    resolves every relationship field with fast_fields' RelatedRows, fast path on or off."""
    from graphql import GraphQLObjectType
    from strawberry.types.base import get_object_definition

    from app.api.read.fast_fields import RelatedRows
    from app.api.schema import build_schema
    from app.api.types.base import to_camel
    from app.settings import Settings

    for fast in (True, False):
        built = build_schema(Settings.model_construct(graphql_fast_path=fast))
        for label, node in NODE_TYPES.items():
            graphql_type = built._schema.type_map[get_object_definition(node, strict=True).name]
            assert isinstance(graphql_type, GraphQLObjectType)
            for name in entities()[label].relationships:
                field = graphql_type.fields[to_camel(name)]
                assert isinstance(field.resolve, RelatedRows), (label, name)


def test_enum_filters_check_the_labels_choices_and_text_ones_match_exactly() -> None:
    documents = compiler()
    connection_query(
        documents,
        "ConstraintDocument",
        [field("title")],
        where={"kind": "BRANDKIT"},
        ascending=False,
    )
    assert "brandkit" in documents.params.values()  # an enum's value, whatever its case
    with pytest.raises(ValidationFailed, match="unknown ConstraintDocument kind"):
        connection_query(
            compiler(),
            "ConstraintDocument",
            [field("title")],
            where={"kind": "brand"},
            ascending=False,
        )
    artifacts = compiler()
    connection_query(
        artifacts, "MemoryArtifact", [field("uri")], where={"kind": "Transcript"}, ascending=False
    )
    assert "Transcript" in artifacts.params.values()  # free text: kept as written
