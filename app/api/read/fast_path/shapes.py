"""Which fields of a GraphQL object type the fast path completes without graphql-core.

Two kinds qualify, both decided once per type from the executable schema:
- plain attributes: strawberry's default resolver (getattr of the Python name), no field
  extensions, no resolver of our own;
- relationship fields whose resolver app/api/read/fast_fields installed (RelatedRows): they only
  pick the rows the compiled query keyed under the field's response key.
Anything else (resolvers with logic, permissions) is completed by graphql-core. A union's or an
interface's value is completed as the object type of its class (fast_path/plan.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from graphql import GraphQLObjectType
from strawberry.schema.schema_converter import GraphQLCoreConverter

from app.api.read.fast_fields import RelatedRows
from app.api.types.base import NodeType
from app.graph.registry import Entity, entity

BACKREF = GraphQLCoreConverter.DEFINITION_BACKREF


@dataclass(frozen=True)
class FieldShape:
    python_name: str
    related: RelatedRows | None = None  # set for relationship fields (rows by response key)


@dataclass(frozen=True)
class TypeShape:
    name: str
    model: Entity | None  # the model of a node type; None for other strawberry types
    fields: dict[str, FieldShape]  # the fields the fast path can complete, by GraphQL name
    # A node type whose plain fields are all model properties: from_row builds it from a row
    # dict alone, so the fast path may read those rows directly.
    from_rows: bool
    # A node type's class, where GraphQL checks a value is one (is_type_of: every node type
    # implements the Node interface): the fast path checks the same with isinstance.
    instance_of: type | None = None


_SHAPES: WeakKeyDictionary[GraphQLObjectType, TypeShape | None] = WeakKeyDictionary()


def shape_of(object_type: GraphQLObjectType) -> TypeShape | None:
    """The type's shape, or None when graphql-core must complete values of this type."""
    if object_type not in _SHAPES:
        _SHAPES[object_type] = _classify(object_type)
    return _SHAPES[object_type]


def origin_of(object_type: GraphQLObjectType) -> type | None:
    """The Python class whose values GraphQL shows as `object_type` (strawberry's), if any."""
    definition = (object_type.extensions or {}).get(BACKREF)
    origin = getattr(definition, "origin", None)
    return origin if isinstance(origin, type) else None


def _classify(object_type: GraphQLObjectType) -> TypeShape | None:
    definition = (object_type.extensions or {}).get(BACKREF)
    if definition is None:
        return None
    origin = definition.origin
    is_node = isinstance(origin, type) and issubclass(origin, NodeType)
    # is_type_of (interfaces, casts) is a check graphql-core runs per value: for a node type it
    # is strawberry's isinstance of the class, which the completer makes itself; other types
    # leave it to graphql-core.
    if object_type.is_type_of is not None and not is_node:
        return None
    model = entity(origin.__model__) if is_node else None
    fields = {}
    for name, field in object_type.fields.items():
        shape = _field_shape(field.resolve, (field.extensions or {}).get(BACKREF))
        if shape is not None:
            fields[name] = shape
    plain = [f.python_name for f in fields.values() if f.related is None]
    from_rows = model is not None and all(name in model.properties for name in plain)
    checked = origin if is_node and object_type.is_type_of is not None else None
    return TypeShape(
        name=object_type.name,
        model=model,
        fields=fields,
        from_rows=from_rows,
        instance_of=checked,
    )


def _field_shape(resolve: Any, field: Any) -> FieldShape | None:
    if field is None:
        return None
    if isinstance(resolve, RelatedRows):
        return FieldShape(python_name=field.python_name, related=resolve)
    basic = getattr(resolve, "_is_default", False) and field.base_resolver is None
    if basic and not field.extensions and field.default_resolver is getattr:
        return FieldShape(python_name=field.python_name)
    return None
