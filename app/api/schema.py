"""The GraphQL schema: the api packages' query and mutation types merged, with limits and error
shaping."""

from __future__ import annotations

import pkgutil
from importlib import import_module
from types import ModuleType
from typing import Any

import strawberry
from graphql import ASTValidationRule, GraphQLError
from strawberry.extensions import (
    MaxTokensLimiter,
    ParserCache,
    ValidationCache,
)
from strawberry.scalars import JSON
from strawberry.tools import merge_types

from app import api
from app.api.context import Info
from app.api.edge.limits import limit_rule
from app.api.edge.literal_rule import EdgeValidationRules
from app.api.edge.text_input import guard_builtin_text_scalars, json_scalar
from app.api.errors import ErrorShaping
from app.api.read import fast_fields
from app.api.read.fast_path import FastExecutor
from app.model.enums import Role
from app.settings import Settings


@strawberry.type(description="The authenticated caller.")
class Viewer:
    client_id: strawberry.ID
    role: Role
    agent_name: str | None


@strawberry.type
class ViewerQueries:
    @strawberry.field(description="Who the API key belongs to.")
    def viewer(self, info: Info) -> Viewer:
        principal = info.context.caller()
        return Viewer(
            client_id=strawberry.ID(principal.client_id),
            role=principal.role,
            agent_name=principal.agent_name,
        )


def api_packages() -> list[ModuleType]:
    """Every package under app/api, by name. Those serving root fields name their types in
    QUERIES and MUTATIONS (as "module.Class"; named, not imported, since a package's __init__
    runs whenever any of its modules is imported), so a new package needs no edit here."""
    found = sorted(info.name for info in pkgutil.iter_modules(api.__path__) if info.ispkg)
    return [import_module(f"{api.__name__}.{name}") for name in found]


def root_types(kind: str) -> tuple[type, ...]:
    """The types every api package names in `kind` (QUERIES, MUTATIONS or SUBSCRIPTIONS), in
    package order."""
    return tuple(
        _named(package, name) for package in api_packages() for name in getattr(package, kind, ())
    )


def _named(package: ModuleType, name: str) -> type:
    module, _, attribute = name.rpartition(".")
    found: type = getattr(import_module(f"{package.__name__}.{module}"), attribute)
    return found


Query = merge_types("Query", (ViewerQueries, *root_types("QUERIES")))
Mutation = merge_types("Mutation", root_types("MUTATIONS"))
Subscription = merge_types("Subscription", root_types("SUBSCRIPTIONS"))


class Schema(strawberry.Schema):
    def process_errors(self, errors: list[GraphQLError], execution_context: Any = None) -> None:
        """Expected errors are answers, not incidents; `shaped` logs the unexpected ones."""


def build_schema(settings: Settings) -> strawberry.Schema:
    # The limit rule is built once so that every request validates with the same rule
    # classes; only then does the validation cache hit (validation dominates small requests).
    limit_rules: list[type[ASTValidationRule]] = [
        limit_rule(
            max_depth=settings.max_query_depth,
            max_aliases=settings.max_aliases,
            max_fields=settings.max_fields,
        )
    ]
    guard_builtin_text_scalars()
    built = Schema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        scalar_overrides={JSON: json_scalar(settings.max_json_depth)},
        extensions=[
            lambda: EdgeValidationRules(limit_rules),
            lambda: MaxTokensLimiter(max_token_count=settings.max_tokens),
            lambda: ParserCache(maxsize=1024),
            lambda: ValidationCache(maxsize=1024),
            ErrorShaping,
        ],
        execution_context_class=FastExecutor if settings.graphql_fast_path else None,
    )
    fast_fields.install(built)
    return built


# The module-level schema is what `strawberry export-schema app.api.schema:schema` reads.
schema = build_schema(Settings.model_construct())
