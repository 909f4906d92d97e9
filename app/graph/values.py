"""Turns what the driver returns into plain Python values."""

from __future__ import annotations

from typing import Any

from neo4j.graph import Node
from neo4j.time import Date, DateTime


def plain(value: Any) -> Any:
    if isinstance(value, DateTime | Date):
        return value.to_native()
    if isinstance(value, Node):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value
