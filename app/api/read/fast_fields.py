"""Relationship fields resolved without strawberry's per-call argument conversion.

A relationship field's arguments (first, where, orderBy) were already applied by the compiled
Cypher query; resolving it only picks the rows the query keyed under the field's response key.
Strawberry would still convert those arguments on every call (for every parent object), which
dominated nested reads in bench/lineage.py, so the executable schema's resolvers for these
fields are replaced by direct ones. The GraphQL schema itself (names, arguments, types) is
unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import strawberry
from graphql import GraphQLObjectType, GraphQLResolveInfo
from strawberry.types.base import get_object_definition

from app.api.types.base import GRAPHQL_NAMES, NODE_TYPES, to_camel
from app.graph.registry import entity


def related(row: dict[str, Any], response_key: str, many: bool) -> Any:
    """What a relationship field reads of its parent's row: the list of rows the compiled query
    keyed under the field's response key, or (a field of one) the first of them or None. The
    fast path (fast_path/plan.py) reads the rows with this too, without calling the resolver."""
    rows = row.get(response_key)
    if many:
        return list(rows or ())
    return rows[0] if rows else None


@dataclass(frozen=True)
class RelatedRows:
    """The resolver of a relationship field: its rows, as node types of the target label."""

    label: str
    many: bool  # a list field, else a field of at most one record

    def __call__(self, root: Any, info: GraphQLResolveInfo, **_: Any) -> Any:
        build = NODE_TYPES[self.label].from_row
        found = related(root._row, str(info.path.key), self.many)
        if self.many:
            return [build(row) for row in found]
        return None if found is None else build(found)


def install(schema: strawberry.Schema) -> int:
    """Swap the resolvers of every model relationship field; returns how many were swapped."""
    swapped = 0
    for label, node in NODE_TYPES.items():
        type_name = get_object_definition(node, strict=True).name
        graphql_type = schema._schema.type_map.get(type_name)
        if not isinstance(graphql_type, GraphQLObjectType):
            continue
        for name, relationship in entity(label).relationships.items():
            field = graphql_type.fields.get(to_camel(name))
            if field is None or GRAPHQL_NAMES.python_name(label, to_camel(name)) != name:
                continue
            field.resolve = RelatedRows(relationship.target, str(field.type).startswith("["))
            swapped += 1
    return swapped
