"""What a request was and how it ended, for the request metrics and span (app/web/metrics.py):
its operation (the GraphQL root fields it ran) and the first error's code. The edge opens one
per request (`start_outcome`); the layers that know either note it.

The operation is named by the schema's root fields, sorted and joined with "+": never by the
client's operationName or aliases, which the client chooses freely.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    parse,
)

# An operation that did not parse or validate (its variables included): its field names may be
# anything the client wrote.
INVALID = "invalid"


@dataclass(slots=True)
class Outcome:
    operation: str | None = None  # None: no GraphQL operation (the route names the request)
    code: str = ""  # the first error's code; "" when none


_outcome: ContextVar[Outcome | None] = ContextVar("request_outcome", default=None)


def start_outcome() -> Outcome:
    outcome = Outcome()
    _outcome.set(outcome)
    return outcome


def note_operation(label: str) -> None:
    """A batch notes each of its operations: the request is named by all their root fields."""
    outcome = _outcome.get()
    if outcome is None:
        return
    if outcome.operation is None or outcome.operation == label:
        outcome.operation = label
    else:
        outcome.operation = "+".join(sorted({*outcome.operation.split("+"), *label.split("+")}))


def note_code_of(code: str) -> None:
    """The request's code, unless it noted one already (the first error's)."""
    outcome = _outcome.get()
    if outcome is not None and not outcome.code:
        outcome.code = code


def note_code(response: Any) -> None:
    """The first error's `extensions.code` of a GraphQL answer (or a batch of them)."""
    for answer in response if isinstance(response, list) else [response]:
        errors = answer.get("errors") if isinstance(answer, Mapping) else None
        if errors:
            first = errors[0]
            extensions = first.get("extensions") if isinstance(first, Mapping) else None
            note_code_of(str((extensions or {}).get("code") or ""))
            return


def executed(errors: list[GraphQLError] | None, data: object) -> bool:
    """False for a result refused before execution (parse, validation, variables, limits):
    no data, and an error at no path."""
    return data is not None or not errors or all(error.path for error in errors)


def operation_label(schema: GraphQLSchema, query: str, name: str | None) -> str:
    """The root fields `query` selects in operation `name`; INVALID where the document does not
    parse, has no such operation, or selects a root field the schema lacks."""
    if len(query) > MAX_CACHED_QUERY:  # a padded document must not pin its size in the cache
        return _label.__wrapped__(schema, query, name)
    return _label(schema, query, name)


MAX_CACHED_QUERY = 8_192


@lru_cache(maxsize=1024)
def _label(schema: GraphQLSchema, query: str, name: str | None) -> str:
    # Parsed again here (strawberry's parse is cached out of reach), once per document.
    try:
        document = parse(query, no_location=True)
    except GraphQLError:
        return INVALID
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    chosen = [o for o in operations if name is None or (o.name and o.name.value == name)]
    if len(chosen) != 1:
        return INVALID
    root = schema.get_root_type(chosen[0].operation)
    fields = set(_root_fields(chosen[0].selection_set, fragments, set()))
    if root is None or not fields or any(not _known(f, root.fields) for f in fields):
        return INVALID
    return "+".join(sorted(fields))


def _known(field: str, fields: Mapping[str, Any]) -> bool:
    return field in fields or field in {"__typename", "__schema", "__type"}


def _root_fields(
    selections: SelectionSetNode, fragments: Mapping[str, FragmentDefinitionNode], seen: set[str]
) -> Iterable[str]:
    """Field names at the root, through fragments (`seen`: the fragments being expanded; a
    cycle is invalid, and would not end)."""
    for selection in selections.selections:
        if isinstance(selection, FieldNode):
            yield selection.name.value
        elif isinstance(selection, InlineFragmentNode):
            yield from _root_fields(selection.selection_set, fragments, seen)
        elif isinstance(selection, FragmentSpreadNode):
            fragment = fragments.get(selection.name.value)
            if fragment is None or fragment.name.value in seen:
                yield "?"  # not a field of any schema: the label is INVALID
                continue
            yield from _root_fields(fragment.selection_set, fragments, seen | {fragment.name.value})
