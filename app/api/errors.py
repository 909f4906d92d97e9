"""Expected errors keep their code and message; anything else is masked and logged."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from graphql import GraphQLError
from strawberry.extensions import SchemaExtension

from app.domain.errors import AppError

log = logging.getLogger("app.api")
MASKED_MESSAGE = "Unexpected error; it was logged. Report the request id to the operators."


def shaped(error: GraphQLError) -> GraphQLError:
    original = error.original_error
    if original is None and "code" in (error.extensions or {}):
        return error
    if original is None or isinstance(original, GraphQLError):
        # Parse, validation, variable coercion and limiter errors say what to fix already.
        return _with_code(error, "GRAPHQL_VALIDATION", {})
    if isinstance(original, AppError):
        return _with_code(error, original.code, original.details, message=original.message)
    log.error("unexpected error in %s", error.path, exc_info=original)
    return _with_code(error, "INTERNAL", {}, message=MASKED_MESSAGE)


def _with_code(
    error: GraphQLError, code: str, details: dict[str, Any], message: str | None = None
) -> GraphQLError:
    return GraphQLError(
        message or error.message,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        original_error=None,
        extensions={**(error.extensions or {}), "code": code, **details},
    )


class ErrorShaping(SchemaExtension):
    """Gives every error of an executed operation a `code` (the HTTP view also shapes errors
    raised before execution, such as parse errors, which never reach this extension's result).
    """

    def on_operation(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        if result is not None and result.errors:
            result.errors = [shaped(error) for error in result.errors]

    def get_results(self) -> dict[str, Any]:
        return answer_extensions(self.execution_context.context).get("extensions", {})


def answer_extensions(context: Any) -> dict[str, Any]:
    """The response's `extensions` entry: the Cypher round trips, when the client asked."""
    if getattr(context, "wants_round_trips", False):
        return {"extensions": {"cypherRoundTrips": context.round_trips.count}}
    return {}
