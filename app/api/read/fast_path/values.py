"""Completion of leaf values and of list / non-null wrappers, as graphql-core completes them.

Every completer returns the response value or raises `Bail` where graphql-core would report an
error (null for a non-null field, a value the scalar or enum cannot coerce, a non-list for a
list); the caller then lets graphql-core complete the whole value again, so that the errors,
their paths and the nulls they cause are exactly graphql-core's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphql import (
    GraphQLBoolean,
    GraphQLEnumType,
    GraphQLID,
    GraphQLLeafType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLOutputType,
    GraphQLString,
    Undefined,
    get_named_type,
    is_leaf_type,
)

Completer = Callable[[Any], Any]


class Bail(Exception):
    """A value the fast path leaves to graphql-core."""


def wrapped(output_type: GraphQLOutputType, named: Completer) -> Completer:
    """The completer for `output_type`, with `named` completing values of its named type."""
    if isinstance(output_type, GraphQLNonNull):
        return _non_null(wrapped(output_type.of_type, named))
    if isinstance(output_type, GraphQLList):
        return _list(wrapped(output_type.of_type, named))
    return _nullable(named)


def leaf(leaf_type: GraphQLLeafType) -> Completer:
    coerce = leaf_type.coerce_output_value

    def complete(value: Any) -> Any:
        coerced = coerce(value)
        if coerced is None or coerced is Undefined:
            raise Bail
        return coerced

    return complete


def reading(
    output_type: GraphQLOutputType, complete: Completer, name: str, *, row: bool
) -> Completer:
    """The completer of a source's `name` (a row's key, else an object's attribute), with the
    commonest leaf values answered in that same call: strings of String and ID and booleans of
    Boolean (graphql-core returns those as they are), and strings of an enum (the name
    graphql-core gave that string before, remembered)."""
    scalar = output_type.of_type if isinstance(output_type, GraphQLNonNull) else output_type
    kept = _KEPT_AS_IS.get(id(scalar))
    if kept is not None:

        def plain(source: Any) -> Any:
            value = source.get(name) if row else getattr(source, name)
            return value if value.__class__ is kept else complete(value)

        return plain
    if isinstance(scalar, GraphQLEnumType):
        names: dict[str, Any] = {}

        def enum(source: Any) -> Any:
            value = source.get(name) if row else getattr(source, name)
            if value.__class__ is not str:
                return complete(value)
            found = names.get(value)
            if found is None:
                found = names[value] = complete(value)  # raises Bail for a value it rejects
            return found

        return enum
    if row:
        return lambda source: complete(source.get(name))
    return lambda source: complete(getattr(source, name))


_KEPT_AS_IS = {id(GraphQLString): str, id(GraphQLID): str, id(GraphQLBoolean): bool}


def is_leaf(output_type: GraphQLOutputType) -> bool:
    return is_leaf_type(get_named_type(output_type))


def _non_null(inner: Completer) -> Completer:
    def complete(value: Any) -> Any:
        if value is None or value is Undefined:
            raise Bail
        return inner(value)

    return complete


def _nullable(named: Completer) -> Completer:
    def complete(value: Any) -> Any:
        if value is None or value is Undefined:
            return None
        if isinstance(value, Exception):
            raise Bail
        return named(value)

    return complete


def _list(item: Completer) -> Completer:
    def complete(value: Any) -> Any:
        if value is None or value is Undefined:
            return None
        # graphql-core takes any iterable but strings and mappings; plain lists are what our
        # types hold, anything else goes back to it.
        if value.__class__ is not list and value.__class__ is not tuple:
            raise Bail
        return [item(entry) for entry in value]

    return complete
