"""Completers for one execution: selection sets turned into functions from source to response.

Sources are either objects (what resolvers returned: node types, lineage results, payloads;
plain fields are read with getattr, as strawberry's default resolver does) or the row dicts a
compiled query keyed under a relationship field (read as NodeType.from_row would, without
building the objects). Selections are collected by graphql-core itself, so aliases, fragments
on the right type, @skip/@include with variables and field merging are graphql-core's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from graphql import (
    FragmentDefinitionNode,
    GraphQLAbstractType,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLSchema,
    OperationDefinitionNode,
    get_named_type,
    is_abstract_type,
    is_leaf_type,
    is_object_type,
)
from graphql.execution.collect_fields import CollectedFields, FieldDetailsList
from graphql.execution.values import VariableValues

from app.api.read.fast_fields import RelatedRows, related
from app.api.read.fast_path.cache import CompleterCache, directive_variables
from app.api.read.fast_path.shapes import TypeShape, origin_of, shape_of
from app.api.read.fast_path.values import Completer, is_leaf, leaf, reading, wrapped
from app.api.types.base import text_converter
from app.graph.registry import Entity

Getter = Callable[[Any], Any]


class Collects(Protocol):
    schema: GraphQLSchema
    operation: OperationDefinitionNode
    fragment_definitions: dict[str, FragmentDefinitionNode]
    variable_values: VariableValues

    def collect_subfields(
        self, return_type: GraphQLObjectType, field_details_list: FieldDetailsList
    ) -> CollectedFields: ...


SHARED = CompleterCache()


class Planner:
    """Builds (and keeps, for this execution) the completer of each selection."""

    def __init__(self, executor: Collects) -> None:
        self.executor = executor
        self._objects: dict[tuple[GraphQLObjectType, int, bool], Completer | None] = {}
        self._entries: dict[tuple[GraphQLOutputType, int], Completer | None] = {}
        self._alive: list[FieldDetailsList] = []  # ids below stay unique while cached

    def entry(self, output_type: GraphQLOutputType, details: FieldDetailsList) -> Completer | None:
        """The completer of a resolved value of `output_type`, or None to use graphql-core."""
        key = (output_type, id(details))
        if key not in self._entries:
            self._alive.append(details)
            self._entries[key] = self._shared(output_type, details)
        return self._entries[key]

    def rows_entry(
        self, output_type: GraphQLOutputType, details: FieldDetailsList
    ) -> Completer | None:
        """The completer of `output_type` built from the compiled query's row of the value
        (as a relationship field's rows are read), or None where the type cannot be."""
        named = get_named_type(output_type)
        if not is_object_type(named):
            return None
        inner = self._object(named, details, from_rows=True)
        return None if inner is None else wrapped(output_type, inner)

    def _shared(
        self, output_type: GraphQLOutputType, details: FieldDetailsList
    ) -> Completer | None:
        if is_leaf(output_type):
            return None
        nodes = tuple(d.node for d in details)
        key = (output_type, tuple(map(id, nodes)), self._directive_values())
        try:
            cached = SHARED.get(key)
        except TypeError:  # a directive variable holds an unhashable value: build per request
            return self._output(output_type, details)
        if cached is not None:
            return cached[0]
        completer = self._output(output_type, details)
        SHARED.put(key, completer, keep=nodes)
        return completer

    def _directive_values(self) -> tuple[Any, ...]:
        executor = self.executor
        names = directive_variables(executor.operation, executor.fragment_definitions.values())
        coerced = executor.variable_values.coerced
        return tuple(coerced.get(name) for name in names)

    def _output(
        self, output_type: GraphQLOutputType, details: FieldDetailsList
    ) -> Completer | None:
        named = get_named_type(output_type)
        if is_leaf_type(named):
            return wrapped(output_type, leaf(named))
        if is_abstract_type(named):
            inner = self._abstract(named, details)
        elif is_object_type(named):
            inner = self._object(named, details, from_rows=False)
        else:
            return None
        return None if inner is None else wrapped(output_type, inner)

    def _abstract(
        self, abstract_type: GraphQLAbstractType, details: FieldDetailsList
    ) -> Completer | None:
        """A union's or an interface's values (search hits' records, `node(id:)`), each
        completed as the object type of its class, as strawberry resolves the type of a value.
        A value of a type the fast path leaves to graphql-core raises: graphql-core completes
        the whole value again."""
        by_class: dict[type, Completer] = {}
        for object_type in self.executor.schema.get_possible_types(abstract_type):
            origin = origin_of(object_type)
            if origin in by_class:  # one class shown as two types: graphql-core decides
                return None
            inner = self._object(object_type, details, from_rows=False)
            if origin is not None and inner is not None:
                by_class[origin] = inner
        if not by_class:
            return None

        def complete(source: Any) -> Any:
            inner = by_class.get(type(source))
            if inner is None:
                raise TypeError(f"{abstract_type.name}: graphql-core completes (and reports) it")
            return inner(source)

        return complete

    def _object(
        self, object_type: GraphQLObjectType, details: FieldDetailsList, *, from_rows: bool
    ) -> Completer | None:
        key = (object_type, id(details), from_rows)
        if key not in self._objects:
            self._alive.append(details)
            self._objects[key] = self._build(object_type, details, from_rows)
        return self._objects[key]

    def _build(
        self, object_type: GraphQLObjectType, details: FieldDetailsList, from_rows: bool
    ) -> Completer | None:
        shape = shape_of(object_type)
        if shape is None or (from_rows and not shape.from_rows):
            return None
        collected = self.executor.collect_subfields(object_type, details)
        if collected.new_defer_usages:
            return None
        getters: list[tuple[str, Getter]] = []
        for response_key, field_details in collected.grouped_field_set.items():
            if any(d.defer_usage or d.fragment_variable_values for d in field_details):
                return None
            getter = self._getter(shape, object_type, response_key, field_details, from_rows)
            if getter is None:
                return None
            getters.append((response_key, getter))

        instance_of = None if from_rows else shape.instance_of

        def complete(source: Any) -> dict[str, Any]:
            if instance_of is not None and not isinstance(source, instance_of):
                raise TypeError(f"not a {shape.name}: graphql-core completes (and reports) it")
            return {key: get(source) for key, get in getters}

        return complete

    def _getter(
        self,
        shape: TypeShape,
        object_type: GraphQLObjectType,
        response_key: str,
        field_details: FieldDetailsList,
        from_rows: bool,
    ) -> Getter | None:
        name = field_details[0].node.name.value
        if name == "__typename":
            typename = object_type.name
            return lambda _source: typename
        field = shape.fields.get(name)
        if field is None:
            return None
        output_type = object_type.fields[name].type
        if field.related is not None:
            return self._related(field.related, output_type, response_key, field_details, from_rows)
        complete = self._output(output_type, field_details)
        if complete is None:
            return None
        if from_rows:
            assert shape.model is not None  # from_rows shapes are node types
            return _row_property(shape.model, field.python_name, output_type, complete)
        return reading(output_type, complete, field.python_name, row=False)

    def _related(
        self,
        relationship: RelatedRows,
        output_type: GraphQLOutputType,
        response_key: str,
        field_details: FieldDetailsList,
        from_rows: bool,
    ) -> Getter | None:
        target = get_named_type(output_type)
        if not isinstance(target, GraphQLObjectType):
            return None
        target_shape = shape_of(target)
        if target_shape is None or target_shape.model is None:
            return None
        if target_shape.model.label != relationship.label:
            return None
        row = self._object(target, field_details, from_rows=True)
        if row is None:
            return None
        complete = wrapped(output_type, row)
        many = relationship.many

        def rows(source: Any) -> Any:
            return complete(related(source if from_rows else source._row, response_key, many))

        return rows


def _row_property(
    model: Entity, name: str, output_type: GraphQLOutputType, complete: Completer
) -> Getter:
    convert = text_converter(model, name)
    if convert is None:  # taken as the row holds it, as from_row does
        return reading(output_type, complete, name, row=True)

    def converted(row: dict[str, Any]) -> Any:
        value = row.get(name)
        return complete(convert(value) if isinstance(value, str) else value)

    return converted
