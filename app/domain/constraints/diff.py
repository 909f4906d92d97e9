"""What changed between two versions of a document: one change per field path, lists of items
with an identity (facts by key, policies by action, ...) matched by it rather than by position,
so that inserting one fact shows as one added fact, not as every later fact changed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.domain.constraints.schemas import UNIQUE_LISTS


@dataclass(frozen=True)
class Change:
    path: str  # e.g. "facts[warranty].statement", "tone"
    op: str  # "added", "removed" or "changed"
    before: Any
    after: Any


def diff_contents(before: Any, after: Any) -> list[Change]:
    changes: list[Change] = []
    _diff(before, after, "", None, changes)
    return changes


def _diff(before: Any, after: Any, path: str, name: str | None, out: list[Change]) -> None:
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(before.keys() | after.keys()):
            # Only the schema's own lists (top level) are keyed: not those in free-form settings.
            _member(
                before, after, key, f"{path}.{key}" if path else key, None if path else key, out
            )
        return
    identity = UNIQUE_LISTS.get(name or "")
    if identity and _keyed(before, identity) and _keyed(after, identity):
        old = {item[identity]: item for item in before}
        new = {item[identity]: item for item in after}
        order = list(old) + [key for key in new if key not in old]
        for key in order:
            _member(old, new, key, f"{path}[{key}]", None, out)
        return
    if before != after:
        out.append(Change(path, "changed", before, after))


def _member(
    old: dict[str, Any],
    new: dict[str, Any],
    key: str,
    path: str,
    name: str | None,
    out: list[Change],
) -> None:
    if key not in new:
        out.append(Change(path, "removed", old[key], None))
    elif key not in old:
        out.append(Change(path, "added", None, new[key]))
    else:
        _diff(old[key], new[key], path, name, out)


def _keyed(items: Any, identity: str) -> bool:
    return isinstance(items, list) and all(
        isinstance(item, dict) and isinstance(item.get(identity), str) for item in items
    )
