"""What the caller selected under the field being resolved, as the framework-neutral tree the
query compiler reads (app/graph/selection.py), and the few ways resolvers look into it.

Built straight from graphql-core's field nodes, with the values strawberry's
`info.selected_fields` would give (see README.md): fragments are spread into their parent,
directives are not applied (a field under @skip is still compiled), literal arguments are the
literal's text (`first: 5` gives "5"), and variables their coerced values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLResolveInfo,
    InlineFragmentNode,
    ListValueNode,
    ObjectValueNode,
    SelectionSetNode,
    ValueNode,
    VariableNode,
)

from app.api.context import Info
from app.graph.selection import Field, merged, selects, under

__all__ = ["Field", "connection_nodes", "root_field", "selected", "selects", "under"]


def root_field(info: Info) -> Field:
    """The field being resolved, with its arguments and what was selected on its value (all its
    nodes' selections: a field may be selected more than once under one response key)."""
    raw: GraphQLResolveInfo = info._raw_info
    # strawberry's executor passes the coerced dict, graphql-core's its VariableValues.
    values: Any = raw.variable_values
    variables: Mapping[str, Any] = getattr(values, "coerced", values)
    read = _Reader(raw.fragments, variables)
    return merged(read.field(node, None) for node in raw.field_nodes)[0]


def selected(info: Info) -> tuple[Field, ...]:
    """What was selected on the value of the field being resolved."""
    return root_field(info).children


def connection_nodes(fields: Iterable[Field]) -> list[Field]:
    """The node selection of a connection: under `nodes` and under `edges { node }`."""
    listed = list(fields)
    return [*under(listed, "nodes"), *under(listed, "edges", "node")]


class _Reader:
    def __init__(
        self, fragments: Mapping[str, FragmentDefinitionNode], variables: Mapping[str, Any]
    ) -> None:
        self.fragments = fragments
        self.variables = variables

    def children(
        self, selection_set: SelectionSetNode | None, condition: str | None = None
    ) -> list[Field]:
        found: list[Field] = []
        for node in selection_set.selections if selection_set else ():
            if isinstance(node, FieldNode):
                found.append(self.field(node, condition))
            elif isinstance(node, InlineFragmentNode):
                inline = node.type_condition.name.value if node.type_condition else condition
                found += self.children(node.selection_set, inline)
            elif isinstance(node, FragmentSpreadNode):
                fragment = self.fragments[node.name.value]
                found += self.children(fragment.selection_set, fragment.type_condition.name.value)
        return found

    def field(self, node: FieldNode, condition: str | None) -> Field:
        return Field(
            name=node.name.value,
            alias=node.alias.value if node.alias else None,
            arguments={a.name.value: self.value(a.value) for a in node.arguments or ()},
            children=tuple(self.children(node.selection_set)),
            type_condition=condition,
        )

    def value(self, node: ValueNode) -> Any:
        if isinstance(node, VariableNode):
            return self.variables.get(node.name.value)
        if isinstance(node, ListValueNode):
            return [self.value(item) for item in node.values]
        if isinstance(node, ObjectValueNode):
            return {f.name.value: self.value(f.value) for f in node.fields}
        return getattr(node, "value", None)
