"""Node types read what the compiled query returned; relationship fields take their rows by
the alias the compiler keyed them under. Every node type names its model label once."""

import json
from collections.abc import Callable
from enum import Enum
from importlib import import_module
from typing import Any, ClassVar, TypeVar

import strawberry
from strawberry.types.base import get_object_definition

from app.api.types.model_fields import model_class, with_model_fields
from app.graph.registry import Entity, entity
from app.graph.values import parse_datetime
from app.model.labels import GRAPHQL_MODULES

N = TypeVar("N", bound="NodeType")
NODE_TYPES: dict[str, type["NodeType"]] = {}


@strawberry.enum(description="Order of a listed connection (keyset-paginated by creation).")
class ListOrder(Enum):
    CREATED_AT_DESC = "CREATED_AT_DESC"
    CREATED_AT_ASC = "CREATED_AT_ASC"


@strawberry.interface(
    name="Node",
    description="A record with a global id: `node(id:)` refetches any record the caller may see.",
)
class NodeType:
    """Every node type: built from a row of the compiled query. GraphQL shows it as the Node
    interface (Relay's global object lookup)."""

    __model__: ClassVar[str]
    # Model properties that resolver fields (not model properties themselves) read from the
    # row: the compiler projects them whatever the selection.
    __needs__: ClassVar[frozenset[str]] = frozenset()
    # Model properties and relationships the type does not show (besides model_fields.HIDDEN).
    __hidden__: ClassVar[frozenset[str]] = frozenset()
    _row: ClassVar[dict[str, Any]]  # set per instance by from_row; not a GraphQL field
    # Every node type's first field, from the model (app/api/types/model_fields.py); the Node
    # interface's one field.
    id: strawberry.ID

    @classmethod
    def from_row(cls: type[N], row: dict[str, Any]) -> N:
        plain, converted = _row_fields(cls)
        values: dict[str, Any] = {name: row.get(name) for name in plain}
        for name, convert in converted:
            value = row.get(name)
            values[name] = convert(value) if isinstance(value, str) else value
        node = cls(**values)
        node._row = row  # type: ignore[misc]
        return node


RowFields = tuple[tuple[str, ...], tuple[tuple[str, Callable[[str], Any]], ...]]
_ROW_FIELDS: dict[type, RowFields] = {}


def _row_fields(cls: type[NodeType]) -> RowFields:
    """The type's fields that are model properties: those taken as they are, and those
    converted from text with their converter (decided once per type)."""
    if cls not in _ROW_FIELDS:
        _ROW_FIELDS[cls] = _split_fields(cls)
    return _ROW_FIELDS[cls]


def _split_fields(cls: type[NodeType]) -> RowFields:
    model = entity(cls.__model__)
    names = [
        field.python_name
        for field in get_object_definition(cls, strict=True).fields
        if field.python_name in model.properties
    ]
    converters = {name: text_converter(model, name) for name in names}
    plain = tuple(name for name, convert in converters.items() if convert is None)
    converted = tuple((name, c) for name, c in converters.items() if c is not None)
    return plain, converted


def text_converter(model: Entity, name: str) -> Callable[[str], Any] | None:
    """How a property that travels as text becomes the value the node type holds: JSON and
    datetimes; None for every other property, taken as it is (from_row and app/api/read/fast_path
    both convert with this and nothing else)."""
    if name in model.jsons:
        return json.loads
    if name in model.datetimes:
        return parse_datetime
    return None


def node_type(label: str, description: str) -> Callable[[type[N]], type[N]]:
    """Makes a class the GraphQL type of a model label: a strawberry type with a field for each
    of the label's shown properties and relationships that the class does not declare itself
    (app/api/types/model_fields.py)."""

    def register(cls: type[N]) -> type[N]:
        cls.__model__ = label
        cls.__annotations__ = with_model_fields(cls, model_class(label), hidden=cls.__hidden__)
        node = strawberry.type(cls, description=description)
        NODE_TYPES[label] = node
        return node

    return register


def every_node_type() -> dict[str, type[NodeType]]:
    """The node type of every label the model gives one, each module imported (registering
    its types), in the model's order."""
    for module in dict.fromkeys(GRAPHQL_MODULES.values()):
        import_module(module)
    return {label: NODE_TYPES[label] for label in GRAPHQL_MODULES}


class GraphQLNameMap:
    """GraphQL field name → Python name, per registered node type (for the compiler)."""

    def __init__(self) -> None:
        self._names: dict[str, dict[str, str]] = {}

    def python_name(self, label: str, graphql_name: str) -> str | None:
        if label not in self._names:
            definition = get_object_definition(NODE_TYPES[label], strict=True)
            self._names[label] = {
                f.graphql_name or to_camel(f.python_name): f.python_name for f in definition.fields
            }
        return self._names[label].get(str(graphql_name))

    def needs(self, label: str) -> frozenset[str]:
        return NODE_TYPES[label].__needs__


def to_camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


GRAPHQL_NAMES = GraphQLNameMap()
