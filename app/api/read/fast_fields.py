"""Relationship fields resolved without strawberry's per-call argument conversion.

A relationship field's arguments (first, where, orderBy) were already applied by the compiled
Cypher query; resolving it only picks the rows the query keyed under the field's response key.
Strawberry would still convert those arguments on every call (for every parent object), which
dominated nested reads in bench/lineage.py, so the executable schema's resolvers for these
fields are replaced by direct ones. The GraphQL schema itself (names, arguments, types) is
unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import strawberry
from graphql import GraphQLObjectType, GraphQLResolveInfo

from app.api.types.base import GRAPHQL_NAMES, NODE_TYPES, to_camel
from app.graph.registry import entity

Resolver = Callable[..., Any]


def _rows(root: Any, info: GraphQLResolveInfo) -> list[dict[str, Any]]:
    return list(root._row.get(str(info.path.key)) or ())


def _many(label: str) -> Resolver:
    def resolve(root: Any, info: GraphQLResolveInfo, **_: Any) -> list[Any]:
        build = NODE_TYPES[label].from_row
        return [build(row) for row in _rows(root, info)]

    return resolve


def _one(label: str) -> Resolver:
    def resolve(root: Any, info: GraphQLResolveInfo, **_: Any) -> Any:
        rows = _rows(root, info)
        return NODE_TYPES[label].from_row(rows[0]) if rows else None

    return resolve


def install(schema: strawberry.Schema) -> int:
    """Swap the resolvers of every model relationship field; returns how many were swapped."""
    swapped = 0
    for label, node in NODE_TYPES.items():
        graphql_type = schema._schema.type_map.get(node.__strawberry_definition__.name)  # type: ignore[attr-defined]
        if not isinstance(graphql_type, GraphQLObjectType):
            continue
        for name, relationship in entity(label).relationships.items():
            field = graphql_type.fields.get(to_camel(name))
            if field is None or GRAPHQL_NAMES.python_name(label, to_camel(name)) != name:
                continue
            is_list = str(field.type).startswith("[")
            resolve = _many(relationship.target) if is_list else _one(relationship.target)
            # app/api/read/fast_path reads the same rows without calling the resolver.
            resolve.related_label = relationship.target  # type: ignore[attr-defined]
            field.resolve = resolve
            swapped += 1
    return swapped
