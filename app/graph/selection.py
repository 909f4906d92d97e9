"""What a caller selected, as the query compiler reads it: a small tree of fields that knows no
GraphQL library (app/api/read/selection.py builds it from an execution's field nodes)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True, slots=True)
class Field:
    """One selected field. Fragments are already spread into their parent's children; a field
    that came through one keeps the fragment's type condition (None when selected directly)."""

    name: str
    alias: str | None = None
    arguments: Mapping[str, Any] = field(default_factory=dict)
    children: tuple[Field, ...] = ()
    type_condition: str | None = None

    @property
    def key(self) -> str:
        """The response key: the alias, else the name."""
        return self.alias or self.name


def merged(fields: Iterable[Field]) -> list[Field]:
    """One field per response key, as GraphQL merges them: a key selected more than once keeps
    its first arguments and gets the children of every selection of it (merged in turn where
    they are read)."""
    by_key: dict[str, Field] = {}
    for selected in fields:
        first = by_key.get(selected.key)
        if first is not None:
            selected = replace(first, children=(*first.children, *selected.children))
        by_key[selected.key] = selected
    return list(by_key.values())


def under(fields: Iterable[Field], *path: str) -> list[Field]:
    """The children of the fields reached by a path of field names (aliases aside), e.g.
    `under(fields, "edges", "node")`."""
    current = list(fields)
    for name in path:
        current = [child for f in current if f.name == name for child in f.children]
    return current


def selects(fields: Iterable[Field], name: str) -> bool:
    """Whether a field of that name is selected anywhere in the tree."""
    return any(f.name == name or selects(f.children, name) for f in fields)
