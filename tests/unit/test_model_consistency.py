"""The graph model is declared once; migrations, GraphQL types and the SDL are held to it."""

import re
from pathlib import Path

import strawberry

from app.api.schema import schema
from app.api.types.plans import Plan as PlanType
from app.graph.cypher_files import load_migrations, split_statements
from app.graph.identifiers import Label
from app.model import MODEL
from app.model.labels import SEARCHABLES
from app.model.nodes import Plan

REPO = Path(__file__).resolve().parents[2]
INTERNAL_PROPERTIES = {"client_id"}


def all_statements() -> str:
    """Every statement still in force: constraints dropped by a later migration are left out."""
    statements = [s for m in load_migrations() for s in m.statements]
    dropped = {m.group(1) for s in statements if (m := re.match(r"DROP CONSTRAINT (\w+)", s))}
    return "\n".join(
        s
        for s in statements
        if not any(re.match(rf"CREATE CONSTRAINT {name}\b", s) for name in dropped)
    )


def test_every_model_label_is_in_the_label_enum() -> None:
    assert {cls.__name__ for cls in MODEL} <= {label.value for label in Label}


def test_every_model_label_has_unique_id_and_client_index() -> None:
    text = all_statements()
    for cls in MODEL:
        label = cls.__name__
        unique_id = rf"FOR \(n:{label}\) REQUIRE (n\.id|\(n\.client_id, n\.id\)) IS UNIQUE"
        assert re.search(unique_id, text), label
        assert re.search(rf"FOR \(n:{label}\) ON \(n\.client_id[,)]", text), label


def test_unique_properties_of_the_model_have_constraints() -> None:
    text = all_statements()
    for cls in MODEL:
        for name, prop in cls.defined_properties(rels=False).items():
            if prop.unique_index:
                unique = rf"\(n:{cls.__name__}\) REQUIRE (n\.{name}|\(n\.client_id, n\.{name}\))"
                assert re.search(rf"{unique} IS UNIQUE", text), f"{cls.__name__}.{name}"


def test_every_searchable_label_has_an_updated_at_index() -> None:
    """The embedding worker scans each searchable label by updated_at (app/retrieval/indexing.py):
    without an index that starts with it, every pass reads the whole label."""
    text = all_statements()
    missing = [
        label
        for label in SEARCHABLES
        if not re.search(rf"FOR \(n:{label}\) ON \(n\.updated_at[,)]", text)
    ]
    assert missing == [], f"add a migration with an updated_at index for {missing}"


def test_indexed_properties_of_the_model_have_indexes() -> None:
    """Every `index=True` property leads an index or a composite constraint (whose backing index
    serves it), alone or after client_id."""
    text = all_statements()
    found = set()
    for cls in MODEL:
        for name, prop in cls.defined_properties(rels=False, aliases=False).items():
            index = rf"FOR \(n:{cls.__name__}\) (ON|REQUIRE) \((n\.client_id, )?n\.{name}[,)]"
            if prop.index and not re.search(index, text):
                found.add((cls.__name__, name))
    assert found == set(), f"add a migration with an index for {sorted(found)}"


def test_graphql_plan_type_exposes_the_model_properties() -> None:
    fields = {f.python_name for f in PlanType.__strawberry_definition__.fields}
    model = set(Plan.defined_properties(rels=False)) - INTERNAL_PROPERTIES
    relationships = set(Plan.defined_properties(properties=False, aliases=False))
    assert fields == model | relationships


def test_statement_splitting() -> None:
    text = "// note\nCREATE INDEX a IF NOT EXISTS\nFOR (n:X) ON (n.y);\n\nRETURN 1;\n"
    assert split_statements(text) == (
        "CREATE INDEX a IF NOT EXISTS\nFOR (n:X) ON (n.y)",
        "RETURN 1",
    )


def test_checked_in_schema_graphql_is_current() -> None:
    checked_in = (REPO / "schema.graphql").read_text(encoding="utf-8")
    assert checked_in == schema.as_str() + "\n", (
        "schema.graphql is stale: run `bash app/services/env.sh export-schema`"
    )


def test_schema_has_the_first_slice() -> None:
    assert isinstance(schema, strawberry.Schema)
    sdl = schema.as_str()
    for name in ["createPlan", "updatePlan", "transitionPlan", "plans(", "totalCount"]:
        assert name in sdl


def test_every_plan_edge_type_is_a_declared_relationship_with_an_edge_id_index() -> None:
    from app.graph.identifiers import RelType
    from app.model.enums import PlanEdgeType

    text = all_statements()
    for edge_type in PlanEdgeType:
        rel_type = edge_type.value.upper()
        assert rel_type in {t.value for t in RelType}
        assert f"()-[r:{rel_type}]-() ON (r.edge_id)" in text
