"""Expected errors keep their code and message; anything else is masked and logged."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from graphql import GraphQLError
from starlette.types import Send
from strawberry.extensions import SchemaExtension

from app.api.edge.asgi import send_json
from app.api.edge.outcome import note_code
from app.domain.kernel.errors import AppError, Unavailable

log = logging.getLogger("app.api")
MASKED_MESSAGE = "Unexpected error; it was logged. Report the request id to the operators."
UNAVAILABLE = Unavailable.code


def shaped(error: GraphQLError) -> GraphQLError:
    original = error.original_error
    if original is None and "code" in (error.extensions or {}):
        return error
    if original is None or isinstance(original, GraphQLError):
        # Parse, validation, variable coercion and limiter errors say what to fix already; an
        # input value refused at the edge (app/api/edge/text_input.py) keeps its code, VALIDATION.
        code = (error.extensions or {}).get("code", "GRAPHQL_VALIDATION")
        return _with_code(error, code, {})
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


def retry_after(response: Any) -> int | None:
    """The longest `retryAfterSeconds` of the UNAVAILABLE errors in a response (or a batch of
    them); None when it has none."""
    answers = response if isinstance(response, list) else [response]
    hints = [
        int((error.get("extensions") or {}).get("retryAfterSeconds") or 1)
        for answer in answers
        if isinstance(answer, dict)
        for error in answer.get("errors") or []
        if isinstance(error, dict) and (error.get("extensions") or {}).get("code") == UNAVAILABLE
    ]
    return max(hints) if hints else None


def http_status(response: Any) -> tuple[int, list[tuple[bytes, bytes]]]:
    """HTTP status and extra headers of a GraphQL response: 503 with Retry-After when Neo4j or
    object storage was unavailable (the client should retry), else 200."""
    seconds = retry_after(response)
    if seconds is None:
        return 200, []
    return 503, [(b"retry-after", str(seconds).encode())]


def unavailable_body(error: Unavailable) -> dict[str, Any]:
    """The response to a request that failed on an outage before GraphQL execution."""
    extensions = {"code": error.code, **error.details}
    return {"errors": [{"message": error.message, "extensions": extensions}]}


async def send_answer(send: Send, response: Any) -> None:
    """Sends a GraphQL response: 503 + Retry-After where it met an outage, else 200."""
    status, headers = http_status(response)
    note_code(response)
    await send_json(send, status, response, headers)


async def send_unavailable(send: Send, error: Unavailable) -> None:
    """Answer 503 + Retry-After for an outage met outside GraphQL (the API key lookup)."""
    await send_answer(send, unavailable_body(error))
