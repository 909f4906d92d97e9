"""Result types built from the domain's rows: a row's keys are the type's field names, so a
resolver states only the fields it converts."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")


def from_fields(output_type: type[T], row: Mapping[str, Any], **converted: Any) -> T:
    """`output_type` (a strawberry type) with each field the row's value of that name, but
    those given in `converted`."""
    taken = {
        field.name: row[field.name]
        for field in dataclasses.fields(output_type)
        if field.name not in converted
    }
    return output_type(**taken, **converted)
