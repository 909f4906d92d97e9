"""The selection tree the compiler reads carries what strawberry's `info.selected_fields` gives
(fragments spread, aliases, literal and variable arguments), built from graphql-core's nodes."""

from __future__ import annotations

from typing import Any

import pytest
import strawberry
from strawberry.scalars import JSON
from strawberry.types.nodes import FragmentSpread, InlineFragment, SelectedField, Selection

from app.api.read.selection import connection_nodes, root_field, selected
from app.graph.selection import Field, merged, selects, under

SEEN: list[tuple[Field, list[Selection]]] = []


@strawberry.type
class Item:
    name: str

    @strawberry.field
    def children(self, first: int = 1, where: JSON | None = None) -> list[Item]:
        return []


@strawberry.type
class Query:
    @strawberry.field
    def item(self, info: strawberry.Info, id: str, first: int = 1) -> Item:
        SEEN.append((root_field(info), info.selected_fields))
        assert selected(info) == root_field(info).children
        return Item(name="x")


SCHEMA = strawberry.Schema(query=Query)


def _execute(document: str, variables: dict[str, Any] | None = None) -> tuple[Field, Field]:
    """(our tree of the root field, the tree read from strawberry's selected_fields)."""
    SEEN.clear()
    result = SCHEMA.execute_sync(document, variable_values=variables)
    assert result.errors is None, result.errors
    ours, theirs = SEEN[0]
    return ours, merged(_strawberry_tree(theirs))[0]


def _strawberry_tree(selections: list[Selection], condition: str | None = None) -> list[Field]:
    fields: list[Field] = []
    for selection in selections:
        if isinstance(selection, FragmentSpread | InlineFragment):
            inner = selection.type_condition or condition
            fields += _strawberry_tree(selection.selections, inner)
        else:
            assert isinstance(selection, SelectedField)
            children = tuple(_strawberry_tree(selection.selections))
            fields.append(
                Field(selection.name, selection.alias, selection.arguments, children, condition)
            )
    return fields


DOCUMENTS = [
    ('{ item(id: "1") { name } }', None),
    (
        """query($n: Int!, $w: JSON) { item(id: "1", first: 3) {
          a: children(first: $n, where: $w) { name } children(where: {k: [1, "x", null]}) {
          __typename } } }""",
        {"n": 7, "w": {"statusIn": ["READY"]}},
    ),
    (
        """{ item(id: "1") { ...F ... on Item { children(first: 2) { name } }
          ... @include(if: true) { name } } }
          fragment F on Item { children(first: 2) { ...G } } fragment G on Item { name }""",
        None,
    ),
    ('{ item(id: "1") { name @skip(if: true) x: children { name } } }', None),
    (
        '{ item(id: "1") { children { name } } item(id: "1") { children { children { name } } } }',
        None,
    ),
]


@pytest.mark.parametrize(("document", "variables"), DOCUMENTS)
def test_the_tree_carries_what_strawberry_selects(
    document: str, variables: dict[str, Any] | None
) -> None:
    ours, theirs = _execute(document, variables)
    assert ours == theirs


def test_arguments_literals_as_text_variables_coerced_fragments_spread() -> None:
    ours, _ = _execute(DOCUMENTS[1][0], DOCUMENTS[1][1])
    assert ours.arguments == {"id": "1", "first": "3"}
    first, second = ours.children
    assert (first.key, first.name, first.arguments) == (
        "a",
        "children",
        {"first": 7, "where": {"statusIn": ["READY"]}},
    )
    assert second.arguments == {"where": {"k": ["1", "x", None]}}
    spread, _ = _execute(DOCUMENTS[2][0])
    assert [(f.name, f.type_condition) for f in spread.children] == [
        ("children", "Item"),
        ("children", "Item"),
        ("name", None),
    ]
    (children,) = merged(spread.children[:2])
    assert [f.name for f in children.children] == ["name", "name"]


def test_a_root_field_selected_twice_is_merged_and_helpers_read_the_tree() -> None:
    ours, _ = _execute(DOCUMENTS[4][0])
    assert [f.name for f in under(ours.children, "children")] == ["name", "children"]
    assert [f.name for f in under(ours.children, "children", "children")] == ["name"]
    assert selects(ours.children, "name") and not selects(ours.children, "nope")
    node = Field("node", children=(Field("name"),))
    connection = [Field("nodes", children=(Field("id"),)), Field("edges", children=(node,))]
    assert [f.name for f in connection_nodes(connection)] == ["id", "name"]
