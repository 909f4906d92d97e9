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
    GraphQLLeafType,
    GraphQLOutputType,
    Undefined,
    is_leaf_type,
    is_list_type,
    is_non_null_type,
)

Completer = Callable[[Any], Any]


class Bail(Exception):
    """A value the fast path leaves to graphql-core."""


def wrapped(output_type: GraphQLOutputType, named: Completer) -> Completer:
    """The completer for `output_type`, with `named` completing values of its named type."""
    if is_non_null_type(output_type):
        return _non_null(wrapped(output_type.of_type, named))  # type: ignore[union-attr]
    if is_list_type(output_type):
        return _list(wrapped(output_type.of_type, named))  # type: ignore[union-attr]
    return _nullable(named)


def leaf(leaf_type: GraphQLLeafType) -> Completer:
    coerce = leaf_type.coerce_output_value

    def complete(value: Any) -> Any:
        coerced = coerce(value)
        if coerced is None or coerced is Undefined:
            raise Bail
        return coerced

    return complete


def is_leaf(output_type: GraphQLOutputType) -> bool:
    while is_non_null_type(output_type) or is_list_type(output_type):
        output_type = output_type.of_type  # type: ignore[union-attr]
    return is_leaf_type(output_type)


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
