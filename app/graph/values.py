"""Turns what the driver returns into plain Python values."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from neo4j.graph import Node
from neo4j.time import Date, DateTime


def parse_datetime(text: str) -> datetime:
    """A Cypher `toString(datetime)` value as an aware datetime (nanoseconds cut to micro)."""
    text = text.split("[", 1)[0].replace("Z", "+00:00")
    head, dot, rest = text.partition(".")
    if dot:
        digits = len(rest) - len(rest.lstrip("0123456789"))
        rest = rest[:digits][:6].ljust(6, "0") + rest[digits:]
        text = f"{head}.{rest}"
    return datetime.fromisoformat(text)


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
