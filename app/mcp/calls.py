"""Runs a tool for a principal: the arguments checked against the tool's JSON Schema, the tool's
operation executed in-process on the GraphQL schema (the resolvers and domain functions that
GraphQL requests run, no HTTP hop), and its first error, if any, raised as a ToolFailure with
the code and message GraphQL would have answered."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import strawberry
from jsonschema import Draft202012Validator
from starlette.requests import Request

from app.api.context import RequestContext
from app.artifacts.read_budget import open_read_budget
from app.domain.kernel.principal import Principal
from app.graph.executor import start_counting
from app.mcp.budget import compact, fit
from app.mcp.catalogue import READS, TOOLS
from app.mcp.operations import DEFAULT_TOKEN_BUDGET, TOKEN_BUDGET, Operation, build
from app.request_deadline import request_deadline
from app.runtime import Services


@dataclass
class ToolFailure(Exception):
    """An expected failure of a tool call, in GraphQL's words: code, message, details."""

    code: str
    message: str
    details: dict[str, Any] = field(default_factory=dict)

    def answer(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, **self.details}}


class ToolCalls:
    def __init__(self, services: Services, schema: strawberry.Schema) -> None:
        self.services = services
        self.schema = schema
        self.operations = {spec.name: build(spec, schema._schema) for spec in TOOLS}
        self.reads = {kind: build(spec, schema._schema) for kind, spec in READS.items()}
        self._checks = {
            name: Draft202012Validator(op.input_schema) for name, op in self.operations.items()
        }

    async def call(
        self, principal: Principal, name: str, arguments: dict[str, Any], request: Request
    ) -> Any:
        """The tool's compact result; ToolFailure for an unknown tool, arguments that do not
        fit its schema, or the error its operation answered."""
        operation = self.operations.get(name)
        if operation is None:
            known = ", ".join(sorted(self.operations))
            raise ToolFailure("NOT_FOUND", f"no tool named {name!r}; the tools are: {known}")
        self._check(name, arguments)
        data = await self.execute(principal, operation, operation.variables(arguments), request)
        if operation.spec.budgeted:
            return fit(data, int(arguments.get(TOKEN_BUDGET, DEFAULT_TOKEN_BUDGET)))
        return compact(data)

    def _check(self, name: str, arguments: dict[str, Any]) -> None:
        errors = sorted(self._checks[name].iter_errors(arguments), key=lambda e: list(e.path))
        if errors:
            first = errors[0]
            where = ".".join(str(part) for part in first.absolute_path) or "arguments"
            raise ToolFailure(
                "VALIDATION",
                f"{where}: {first.message} (see the tool's input schema and example)",
                {"field": where},
            )

    async def execute(
        self,
        principal: Principal,
        operation: Operation,
        variables: dict[str, Any],
        request: Request,
    ) -> Any:
        """The operation's root field's data, run as `principal` within the request limits."""
        settings = self.services.settings
        open_read_budget(settings.request_read_max_bytes)
        context = RequestContext(
            request=request,
            services=self.services,
            principal=principal,
            round_trips=start_counting(),
        )
        with request_deadline(settings.dependency_timeout_s):
            result = await self.schema.execute(
                operation.document, variable_values=variables, context_value=context
            )
        if result.errors:
            error = result.errors[0]
            extensions = dict(error.extensions or {})
            code = str(extensions.pop("code", "INTERNAL"))
            raise ToolFailure(code, error.message, extensions)
        assert result.data is not None
        return result.data[operation.spec.root]
