"""Labels and relationship types come from closed enums; nothing else is spliced into Cypher."""

from __future__ import annotations

import re
from enum import StrEnum

IDENTIFIER_PATTERN = re.compile(r"^[A-Z][A-Za-z0-9_]{0,62}$")


class Label(StrEnum):
    CLIENT = "Client"
    API_KEY = "ApiKey"
    PLAN = "Plan"


class RelType(StrEnum):
    HAS_KEY = "HAS_KEY"
    OWNS = "OWNS"


def cypher_label(label: Label | str) -> str:
    """The label as it may appear in query text; anything outside the enum is refused."""
    return _checked(Label(label).value)


def cypher_rel_type(rel_type: RelType | str) -> str:
    return _checked(RelType(rel_type).value)


def _checked(name: str) -> str:
    if not IDENTIFIER_PATTERN.match(name):
        raise ValueError(f"unsafe Cypher identifier {name!r}")
    return f"`{name}`"
