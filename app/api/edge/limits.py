"""Query limits in one pass over the document: each operation's depth, aliases and fields, with
every fragment measured once and its measure reused at each spread.

strawberry's QueryDepthLimiter and MaxAliasesLimiter expand a fragment again at every spread, so
a "fragment bomb" (each fragment spreads the previous one twice) costs 2^levels: 22 levels held
the event loop for 13 s. Here the cost is linear in the document, and the bomb itself is refused:
its fields, counted once per spread as execution would meet them, exceed `max_fields`.

Introspection is counted apart: one `__schema` selection can build megabytes of answer (0.2 s
of CPU for a full one) in few tokens, and its fields are not depth-limited; each operation may
select `__schema` and `__type` at most MAX_INTROSPECTIONS times (aliases and spreads included).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValidationRule,
)
from graphql.language.visitor import SKIP, VisitorAction

# GraphiQL's introspection query selects `__schema` once; a second allows a `__type` beside it.
MAX_INTROSPECTIONS = 2
INTROSPECTION_FIELDS = frozenset({"__schema", "__type"})


@dataclass(frozen=True)
class Measure:
    depth: int  # nested fields that have a selection set (introspection fields do not count)
    aliases: int
    fields: int  # once every fragment spread is expanded
    introspections: int = 0  # `__schema` and `__type` selections, counted as `fields`

    def beside(self, other: Measure) -> Measure:
        """The measure of two selections side by side in one selection set."""
        return Measure(
            max(self.depth, other.depth),
            self.aliases + other.aliases,
            self.fields + other.fields,
            self.introspections + other.introspections,
        )


NOTHING = Measure(0, 0, 0, 0)


class DocumentMeasure:
    """Measures a document's operations; fragments first, each once, in dependency order."""

    def __init__(self, document: DocumentNode) -> None:
        self.fragments = {
            d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
        }
        self.measured: dict[str, Measure] = {}
        for name in self._dependencies_first():
            self.measured[name] = self.selections(self.fragments[name].selection_set)

    def selections(self, selection_set: SelectionSetNode | None) -> Measure:
        total = NOTHING
        for selection in selection_set.selections if selection_set else ():
            total = total.beside(self._selection(selection))
        return total

    def _selection(self, selection: Any) -> Measure:
        if isinstance(selection, FieldNode):
            inner = self.selections(selection.selection_set)
            alias = 1 if selection.alias else 0
            # As strawberry's limiter: introspection (`__schema`, `__type`) is not depth-limited,
            # the standard introspection query nests its type references deeper than queries.
            leaf = selection.selection_set is None or selection.name.value.startswith("__")
            depth = 0 if leaf else inner.depth + 1
            introspection = 1 if selection.name.value in INTROSPECTION_FIELDS else 0
            return Measure(
                depth,
                inner.aliases + alias,
                inner.fields + 1,
                inner.introspections + introspection,
            )
        if isinstance(selection, InlineFragmentNode):
            return self.selections(selection.selection_set)
        # A spread of an unknown fragment, or of one inside a cycle, counts nothing here:
        # graphql-core's KnownFragmentNames and NoFragmentCycles rules refuse the document.
        return self.measured.get(selection.name.value, NOTHING)

    def _dependencies_first(self) -> list[str]:
        """Fragment names, each after the fragments it spreads (a depth-first walk with its own
        stack, so a long chain of fragments cannot exhaust Python's; a spread that closes a cycle
        is skipped)."""
        order: list[str] = []
        seen: set[str] = set()
        for root in self.fragments:
            if root in seen:
                continue
            seen.add(root)
            stack = [(root, _spread_names(self.fragments[root].selection_set))]
            while stack:
                name, spreads = stack[-1]
                child = next(spreads, None)
                if child is None:
                    stack.pop()
                    order.append(name)
                elif child in self.fragments and child not in seen:
                    seen.add(child)
                    stack.append((child, _spread_names(self.fragments[child].selection_set)))
        return order


def _spread_names(selection_set: SelectionSetNode) -> Iterator[str]:
    pending = [selection_set]
    while pending:
        for selection in pending.pop().selections:
            if isinstance(selection, FragmentSpreadNode):
                yield selection.name.value
            elif isinstance(selection, FieldNode | InlineFragmentNode) and selection.selection_set:
                pending.append(selection.selection_set)


def limit_rule(*, max_depth: int, max_aliases: int, max_fields: int) -> type[ValidationRule]:
    """A validation rule refusing operations deeper, more aliased or wider than the limits."""

    class OperationLimits(ValidationRule):
        def enter_document(self, node: DocumentNode, *_args: Any) -> VisitorAction:
            measure = DocumentMeasure(node)
            for operation in node.definitions:
                if isinstance(operation, OperationDefinitionNode):
                    found = measure.selections(operation.selection_set)
                    for message in _excesses(operation, found, max_depth, max_aliases, max_fields):
                        self.report_error(GraphQLError(message, operation))
            return SKIP  # everything this rule needs was measured above

    return OperationLimits


def _excesses(
    operation: OperationDefinitionNode,
    found: Measure,
    max_depth: int,
    max_aliases: int,
    max_fields: int,
) -> Iterator[str]:
    name = operation.name.value if operation.name else "anonymous"
    if found.depth > max_depth:
        yield f"'{name}' exceeds maximum operation depth of {max_depth}"
    if found.aliases > max_aliases:
        yield (
            f"'{name}' has {found.aliases} aliases (fragments counted at each spread). "
            f"Allowed: {max_aliases}"
        )
    if found.fields > max_fields:
        yield (
            f"'{name}' selects {found.fields} fields once its fragments are expanded. "
            f"Allowed: {max_fields}; spread fragments fewer times or split the query"
        )
    if found.introspections > MAX_INTROSPECTIONS:
        yield (
            f"'{name}' selects __schema or __type {found.introspections} times. "
            f"Allowed: {MAX_INTROSPECTIONS}; ask for the schema once per request"
        )
