"""Labels and relationship types come from closed enums; nothing else is spliced into Cypher.

Both enums are generated from the one declaration of the graph model (app/model/nodes.py).
"""

from __future__ import annotations

import re
from enum import StrEnum

from app.model import MODEL
from app.model.enums import MemoryRelation

IDENTIFIER_PATTERN = re.compile(r"^[A-Z][A-Za-z0-9_]{0,62}$")


def _relationship_types() -> list[str]:
    # MemoryLinks connect any two records, so their types are not declared per class.
    found = {"HAS_KEY", *(relation.value.upper() for relation in MemoryRelation)}
    for cls in MODEL:
        for relationship in cls.defined_properties(properties=False, aliases=False).values():
            found.add(relationship.definition["relation_type"])
    return sorted(found)


Label = StrEnum("Label", {cls.__name__.upper(): cls.__name__ for cls in MODEL})  # type: ignore[misc]
RelType = StrEnum("RelType", {name: name for name in _relationship_types()})  # type: ignore[misc]


def cypher_label(label: StrEnum | str) -> str:
    """The label as it may appear in query text; anything outside the enum is refused."""
    return _checked(Label(label).value)


def cypher_rel_type(rel_type: StrEnum | str) -> str:
    return _checked(RelType(rel_type).value)


def _checked(name: str) -> str:
    if not IDENTIFIER_PATTERN.match(name):
        raise ValueError(f"unsafe Cypher identifier {name!r}")
    return f"`{name}`"
