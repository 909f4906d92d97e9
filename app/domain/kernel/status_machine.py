"""The one status-machine check every aggregate uses (plans, nodes, assets, threads, ...)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any, TypeVar

from app.domain.kernel.errors import InvalidTransition

E = TypeVar("E", bound=StrEnum)


def check_transition(table: Mapping[E, frozenset[E]], current: E, target: E, *, what: str) -> None:
    """INVALID_TRANSITION naming the allowed next statuses unless `target` follows `current`."""
    if target not in table[current]:
        allowed = ", ".join(sorted(s.value for s in table[current])) or "none"
        raise InvalidTransition(
            f"{what} in status {current.value!r} cannot move to {target.value!r}; "
            f"allowed next statuses: {allowed}",
            current=current.value,
            target=target.value,
        )


def status_move(
    table: Mapping[E, frozenset[E]], target: E, *, what: str
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The changes that move a record (read under its lock) to `target`, once checked."""

    def move(current: dict[str, Any]) -> dict[str, Any]:
        check_transition(table, type(target)(current["status"]), target, what=what)
        return {"status": target.value}

    return move
