"""The GraphQL schema: per-domain query and mutation types merged, with limits and error shaping."""

from __future__ import annotations

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

from app.api.agents.context import ContextQueries
from app.api.agents.cycles import CycleMutations, CycleQueries
from app.api.agents.learning import LearningMutations, LearningQueries
from app.api.agents.subjects import SubjectMutations, SubjectQueries
from app.api.assets.mutations import AssetMutations
from app.api.context import Info
from app.api.conversations.mutations import ConversationMutations
from app.api.conversations.queries import ConversationQueries
from app.api.edge.limits import limit_rule
from app.api.edge.literal_rule import EdgeValidationRules
from app.api.edge.text_input import guard_builtin_text_scalars, json_scalar
from app.api.engagement.mutations import EngagementMutations
from app.api.engagement.queries import EngagementQueries
from app.api.episodes.mutations import EpisodeMutations
from app.api.episodes.queries import EpisodeQueries
from app.api.errors import ErrorShaping
from app.api.keys.resolvers import ApiKeyMutations, ApiKeyQueries
from app.api.lessons.link_mutations import LinkMutations
from app.api.lessons.link_queries import LinkQueries
from app.api.lessons.mutations import LessonMutations
from app.api.lessons.queries import LessonQueries
from app.api.memory.admin import MemoryAdminMutations, MemoryAdminQueries
from app.api.memory.document_queries import DocumentQueries
from app.api.memory.documents import DocumentMutations
from app.api.memory.mutations import MemoryMutations
from app.api.memory.queries import MemoryQueries
from app.api.memory.search import MemorySearchQueries
from app.api.plans.graph_mutations import PlanGraphMutations
from app.api.plans.mutations import PlanMutations
from app.api.read import fast_fields
from app.api.read.fast_path import FastExecutor
from app.api.read.graph_queries import GraphQueries
from app.api.read.lineage import LineageQueries
from app.api.search.queries import SearchQueries
from app.api.sessions.mutations import SessionMutations
from app.api.sessions.queries import SessionQueries
from app.api.task_context.queries import TaskContextQueries
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


Query = merge_types(
    "Query",
    (
        ViewerQueries,
        GraphQueries,
        LineageQueries,
        EngagementQueries,
        ConversationQueries,
        EpisodeQueries,
        LessonQueries,
        LinkQueries,
        SearchQueries,
        TaskContextQueries,
        CycleQueries,
        LearningQueries,
        SubjectQueries,
        ContextQueries,
        SessionQueries,
        MemoryQueries,
        DocumentQueries,
        MemorySearchQueries,
        MemoryAdminQueries,
        ApiKeyQueries,
    ),
)
Mutation = merge_types(
    "Mutation",
    (
        PlanMutations,
        PlanGraphMutations,
        AssetMutations,
        EngagementMutations,
        ConversationMutations,
        EpisodeMutations,
        LessonMutations,
        LinkMutations,
        CycleMutations,
        LearningMutations,
        SubjectMutations,
        SessionMutations,
        MemoryMutations,
        DocumentMutations,
        MemoryAdminMutations,
        ApiKeyMutations,
    ),
)


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
