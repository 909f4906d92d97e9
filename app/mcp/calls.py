"""Runs a tool for a principal: the arguments checked against the tool's JSON Schema, the tool's
document run in-process as the GraphQL view runs a POSTed one (`GraphQLApp.run_operation`: a
read plan where one was learned, else strawberry over the same resolvers and domain functions;
no HTTP hop), and its first error, if any, raised as a ToolFailure with the code and message
GraphQL would have answered."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator
from starlette.requests import Request

from app.api.read.http_view import GraphQLApp
from app.domain.kernel.errors import Unavailable
from app.domain.kernel.principal import Principal
from app.mcp.budget import compact, fit
from app.mcp.catalogue import READS, TOOLS
from app.mcp.operations import DEFAULT_TOKEN_BUDGET, TOKEN_BUDGET, Operation, build
from app.request_deadline import within_deadline
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
    def __init__(self, services: Services, view: GraphQLApp) -> None:
        self.services = services
        self.view = view
        schema = view.graphql_schema
        self.operations = {spec.name: build(spec, schema) for spec in TOOLS}
        self.reads = {kind: build(spec, schema) for kind, spec in READS.items()}
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
        found = self._checks[name].iter_errors(arguments)
        errors = sorted(found, key=lambda error: [str(part) for part in error.path])
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
        context = await self.view.get_context(request, None)  # as a POSTed one gets its own
        context.principal = principal  # the caller of this call (stdio has no request state)
        with within_deadline(self.services.settings.dependency_timeout_s):
            try:
                ran = await self.view.run_operation(context, operation.document, None, variables)
            except Unavailable as outage:
                raise ToolFailure(outage.code, outage.message, dict(outage.details)) from None
        result = ran.result
        if result.errors:
            error = result.errors[0]
            extensions = dict(error.extensions or {})
            code = str(extensions.pop("code", "INTERNAL"))
            raise ToolFailure(code, error.message, extensions)
        assert result.data is not None
        return result.data[operation.spec.root]
