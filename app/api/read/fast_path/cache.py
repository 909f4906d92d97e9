"""Completers kept across requests, keyed by the parsed document's own nodes.

strawberry's ParserCache hands every request with the same query text the same document, so
the field nodes of a selection identify it; the key holds those nodes, which keeps their ids
from being reused while the entry lives. What else decides which fields are collected are the
variables that directives read (@skip/@include), so their values are part of the key.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterable
from threading import Lock
from typing import Any

from graphql import (
    ExecutableDefinitionNode,
    OperationDefinitionNode,
    VariableNode,
    Visitor,
    visit,
)

from app.api.read.fast_path.values import Completer

MAX_ENTRIES = 2_048


class CompleterCache:
    """A bounded LRU map; locked, as servers in threads of one process (tests) share it."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, tuple[Completer | None, Any]] = OrderedDict()
        self._lock = Lock()

    def get(self, key: Hashable) -> tuple[Completer | None] | None:
        """(completer,) when cached (the completer may be None: not supported), else None."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return (entry[0],)

    def put(self, key: Hashable, completer: Completer | None, keep: Any) -> None:
        with self._lock:
            self._entries[key] = (completer, keep)
            if len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)


class _DirectiveVariables(Visitor):
    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.names: set[str] = set()

    def enter_directive(self, *_: Any) -> None:
        self.depth += 1

    def leave_directive(self, *_: Any) -> None:
        self.depth -= 1

    def enter_variable(self, node: VariableNode, *_: Any) -> None:
        if self.depth:
            self.names.add(node.name.value)


_VARIABLES: OrderedDict[int, tuple[OperationDefinitionNode, tuple[str, ...]]] = OrderedDict()
_VARIABLES_LOCK = Lock()


def directive_variables(
    operation: OperationDefinitionNode, fragments: Iterable[ExecutableDefinitionNode]
) -> tuple[str, ...]:
    """Names of the variables that directives of the operation or its fragments read."""
    cached = _VARIABLES.get(id(operation))
    if cached is not None and cached[0] is operation:
        return cached[1]
    collector = _DirectiveVariables()
    for node in (operation, *fragments):
        visit(node, collector)
    names = tuple(sorted(collector.names))
    with _VARIABLES_LOCK:
        _VARIABLES[id(operation)] = (operation, names)
        if len(_VARIABLES) > MAX_ENTRIES:
            _VARIABLES.popitem(last=False)
    return names
