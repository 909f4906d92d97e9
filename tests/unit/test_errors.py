"""Error shaping on a tiny schema: expected errors keep their code, others are masked."""

import asyncio
import logging
from typing import Any

import pytest
import strawberry

from app.api.errors import MASKED_MESSAGE, ErrorShaping
from app.domain.kernel.errors import NotFound


@strawberry.type
class Query:
    @strawberry.field
    def missing(self) -> str:
        raise NotFound("no plan with id 1", id="1")

    @strawberry.field
    def broken(self) -> str:
        raise RuntimeError("secret connection string leaked")


SCHEMA = strawberry.Schema(query=Query, extensions=[ErrorShaping])


def test_expected_error_keeps_code_message_and_details() -> None:
    result = SCHEMA.execute_sync("{ missing }")
    assert result.errors is not None
    error = result.errors[0]
    assert error.message == "no plan with id 1"
    assert error.extensions == {"code": "NOT_FOUND", "id": "1"}


def test_unexpected_error_is_masked_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="app.api"):
        result = SCHEMA.execute_sync("{ broken }")
    assert result.errors is not None
    assert result.errors[0].message == MASKED_MESSAGE
    assert result.errors[0].extensions == {"code": "INTERNAL"}
    assert "secret connection string leaked" in caplog.text


def test_syntax_errors_get_a_code() -> None:
    result = SCHEMA.execute_sync("{ missing ")
    assert result.errors is not None
    assert result.errors[0].extensions == {"code": "GRAPHQL_VALIDATION"}


def run(schema: strawberry.Schema, query: str) -> Any:
    return asyncio.run(schema.execute(query))


def test_depth_aliases_and_tokens_are_limited_before_execution() -> None:
    from app.api.schema import build_schema
    from app.settings import Settings

    limited = build_schema(
        Settings.model_construct(max_query_depth=2, max_aliases=2, max_tokens=60)
    )
    deep = run(limited, "{ plans { edges { node { id } } } }")
    assert deep.errors is not None
    assert "exceeds maximum operation depth of 2" in deep.errors[0].message
    assert deep.errors[0].extensions == {"code": "GRAPHQL_VALIDATION"}
    aliased = run(limited, "{ a: __typename b: __typename c: __typename }")
    assert aliased.errors is not None and "aliases" in aliased.errors[0].message
    tokens = run(limited, "{ " + "__typename " * 80 + "}")
    assert tokens.errors is not None and "tokens" in tokens.errors[0].message
