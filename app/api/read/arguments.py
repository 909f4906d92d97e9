"""A root field's resolver called as strawberry calls it, with its arguments converted by a
function built once per field (for the calls of read plans, app/api/read/calls.py).

strawberry converts a field's coerced arguments into its Python values (input classes, enum
members, lists) by walking their type annotations on every call: for `remember` that was a
sixth of the server's time. `converter` builds that walk once, for the types our inputs use
(optional values, lists, scalars, enums, input classes); a field with any other kind of
argument (strawberry's Maybe, GlobalID, LazyType, inputs that build themselves) gets None, and
its calls go through strawberry's resolver wrapper instead. tests/unit/test_plan_calls.py holds
the conversion to strawberry's own, for every field a plan calls.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING
from typing import Any

from strawberry.relay import GlobalID
from strawberry.scalars import is_scalar
from strawberry.types import Info
from strawberry.types.base import (
    StrawberryList,
    StrawberryMaybe,
    StrawberryOptional,
    has_object_definition,
)
from strawberry.types.enum import StrawberryEnumDefinition, has_enum_definition
from strawberry.types.field import StrawberryField
from strawberry.types.unset import UNSET

Convert = Callable[[Any], Any]
Arguments = Callable[[dict[str, Any]], dict[str, Any]]


class Unsupported(Exception):
    """An argument type the built conversion does not cover."""


def converter(field: StrawberryField, strawberry_schema: Any) -> Arguments | None:
    """The field's coerced arguments (by GraphQL name) to its resolver's keyword arguments, as
    strawberry's `convert_arguments` gives them; None where a type is not covered."""
    resolver = field.base_resolver
    if resolver is None or resolver.parent_parameter or resolver.root_parameter:
        return None  # strawberry would pass them the root value: its wrapper calls these
    registry = strawberry_schema.schema_converter.scalar_registry
    names = strawberry_schema.config.name_converter
    try:
        parts = [
            (
                names.from_argument(argument),
                argument.python_name,
                _of(argument.type, registry, names),
            )
            for argument in field.arguments
        ]
    except Unsupported:
        return None

    def convert(values: dict[str, Any]) -> dict[str, Any]:
        return {python: to(values[name]) for name, python, to in parts if name in values}

    return convert


def _of(type_: Any, registry: Mapping[object, Any], names: Any) -> Convert:
    if isinstance(type_, StrawberryMaybe):
        raise Unsupported(type_)
    if isinstance(type_, StrawberryOptional):
        return _of(type_.of_type, registry, names)  # None and UNSET pass below
    if isinstance(type_, StrawberryList):
        return _list(type_, registry, names)
    if type_ is GlobalID:
        raise Unsupported(type_)
    if is_scalar(type_, registry) or isinstance(type_, StrawberryEnumDefinition):
        return _leaf
    if has_enum_definition(type_):
        return _leaf
    if has_object_definition(type_):
        return _input(type_, registry, names)
    raise Unsupported(type_)


def _leaf(value: Any) -> Any:
    return value


def _list(type_: StrawberryList, registry: Mapping[object, Any], names: Any) -> Convert:
    item = _of(type_.of_type, registry, names)

    def convert(value: Any) -> Any:
        if value is None or value is UNSET:
            return value
        if item is _leaf:  # copied: graphql-core shares a default list between requests
            return list(value)
        return [item(x) for x in value]

    return convert


def _input(type_: Any, registry: Mapping[object, Any], names: Any) -> Convert:
    definition = type_.__strawberry_definition__
    if definition.from_input is not None or not definition.is_input:
        raise Unsupported(type_)
    unset = {
        f.python_name: None
        for f in definition.fields
        if f.default_value is MISSING and f.default_factory is MISSING
    }
    fields = [
        (
            names.from_field(f),
            f.python_name,
            _of(f.resolve_type(type_definition=definition), registry, names),
        )
        for f in definition.fields
    ]

    def convert(value: Any) -> Any:
        if value is None or value is UNSET:
            return value
        kwargs = dict(unset)
        for name, python, to in fields:
            if name in value:
                kwargs[python] = to(value[name])
        return type_(**kwargs)

    return convert


def resolver_call(field: StrawberryField, info: Info, kwargs: dict[str, Any]) -> Any:
    """The resolver called as strawberry's wrapper calls it: `self` (the root value, None), the
    info by its parameter's name, the converted arguments."""
    resolver = field.base_resolver
    assert resolver is not None
    args: list[Any] = [None] if resolver.self_parameter else []
    if resolver.info_parameter is not None:
        kwargs[resolver.info_parameter.name] = info
    return resolver(*args, **kwargs)
