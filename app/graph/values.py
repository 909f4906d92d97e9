"""Turns what the driver returns into plain Python values."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from neo4j import Record
from neo4j._data import RecordExporter  # what Record.data() applies (neo4j is pinned)
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


# Values that every conversion here returns as they are. Checking the exact class first (and
# whole property arrays, such as embeddings, at once) keeps rows of many values cheap: the
# generic checks below cost microseconds per value.
_ATOMS = frozenset({str, int, float, bool, type(None)})
_EXPORTER = RecordExporter()


def _atoms_only(items: list[Any]) -> bool:
    return _ATOMS.issuperset(map(type, items))


# The record's maps and lists are new objects the driver built for this record alone, and the
# record is dropped once exported: they are converted in place, which spares a copy of every
# map and list of a nested row (a third of the conversion's time).


def exported(record: Record) -> dict[str, Any]:
    """`record.data()`, the same values, without walking what needs no conversion."""
    return {key: _in_place(value, _EXPORTER.transform) for key, value in record.items()}


def exported_plain(record: Record) -> dict[str, Any]:
    """`plain(record.data())` in one pass."""
    return {key: _in_place(value, _plain_leaf) for key, value in record.items()}


def _plain_leaf(value: Any) -> Any:
    return plain(_EXPORTER.transform(value))


def _in_place(value: Any, convert: Callable[[Any], Any]) -> Any:
    """`value` with every map and list walked in place and anything else but atoms converted."""
    kind = value.__class__
    if kind in _ATOMS:
        return value
    if kind is dict:
        for key, item in value.items():
            if item.__class__ not in _ATOMS:
                value[key] = _in_place(item, convert)
        return value
    if kind is list:
        if not _atoms_only(value):
            value[:] = [_in_place(item, convert) for item in value]
        return value
    return convert(value)


def plain(value: Any) -> Any:
    kind = value.__class__
    if kind in _ATOMS:
        return value
    if kind is dict:
        return {key: plain(item) for key, item in value.items()}
    if kind is list and _atoms_only(value):
        return list(value)
    if isinstance(value, DateTime | Date):
        return value.to_native()
    if isinstance(value, Node):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value
