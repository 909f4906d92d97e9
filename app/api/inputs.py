"""Turns strawberry inputs into the plain dicts the domain validates."""

from __future__ import annotations

import dataclasses
from typing import Any

import strawberry

from app.domain.kernel.errors import ValidationFailed


def given_fields(data: Any, *, required: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The fields the caller actually sent (UNSET dropped); `required` ones may not be null."""
    fields = {
        field.name: getattr(data, field.name)
        for field in dataclasses.fields(data)
        if getattr(data, field.name) is not strawberry.UNSET
    }
    for name in required & fields.keys():
        if fields[name] is None:
            raise ValidationFailed(f"{name} cannot be null", field=name)
    return fields


def input_arguments(data: Any, *apart: str) -> dict[str, Any]:
    """An input as a domain function's arguments: the fields named `apart` each by its own
    name, the others together as `fields`."""
    fields = dataclasses.asdict(data)
    return {name: fields.pop(name) for name in apart} | {"fields": fields}
