"""Search arguments as GraphQL inputs, turned into the retrieval layer's request."""

from __future__ import annotations

from datetime import datetime

import strawberry

from app.api.search.record_types import SearchRecordType
from app.retrieval.search import SearchFilters, SearchMode, SearchRequest, Shown

strawberry.enum(
    SearchMode, description="VECTOR, KEYWORD (BM25) or HYBRID (reciprocal rank fusion)."
)


@strawberry.input(description="Filters on the found records; each one set must hold.")
class SearchFiltersInput:
    created_after: datetime | None = None
    created_before: datetime | None = None
    statuses: list[str] | None = None
    platform: str | None = None
    thread_id: strawberry.ID | None = None
    plan_id: strawberry.ID | None = strawberry.field(
        default=None, description="The plan, its nodes, and assets made from its blueprints."
    )
    agent: str | None = strawberry.field(
        default=None, description="Episodes of the agent, memories of the agent namespace."
    )
    scope: str | None = strawberry.field(default=None, description="Lesson scope.")
    kinds: list[str] | None = strawberry.field(default=None, description="Memory kinds.")
    tags: list[str] | None = strawberry.field(default=None, description="All of these tags.")
    namespace_prefix: str | None = None
    session_id: strawberry.ID | None = None
    min_priority: int | None = None
    kb_version_id: strawberry.ID | None = strawberry.field(
        default=None,
        description="Only knowledge base facts in force at this knowledge base version (e.g. a "
        "ConstraintsSnapshot's kbVersionId).",
    )

    def to_filters(self) -> SearchFilters:
        def listed(values: list[str] | None) -> tuple[str, ...] | None:
            return tuple(values) if values is not None else None

        return SearchFilters(
            created_after=self.created_after,
            created_before=self.created_before,
            statuses=listed(self.statuses),
            platform=self.platform,
            thread_id=self.thread_id,
            plan_id=self.plan_id,
            agent=self.agent,
            scope=self.scope,
            kinds=listed(self.kinds),
            tags=listed(self.tags),
            namespace_prefix=self.namespace_prefix,
            session_id=self.session_id,
            min_priority=self.min_priority,
            kb_version_id=self.kb_version_id,
        )


@strawberry.input
class SearchInput:
    text: str
    mode: SearchMode = SearchMode.HYBRID
    record_types: list[SearchRecordType] | None = strawberry.field(
        default=None, description="Default: every searchable type."
    )
    k: int = strawberry.field(default=10, description="Results wanted, 1-100.")
    filters: SearchFiltersInput | None = None
    anchor_id: strawberry.ID | None = strawberry.field(
        default=None, description="Boost records within 3 hops of this record in the graph."
    )
    mmr: bool = strawberry.field(
        default=False, description="Diversify with maximal marginal relevance."
    )
    mmr_trade_off: float = strawberry.field(
        default=0.5, description="MMR: 1 = relevance only, 0 = diversity only."
    )

    def to_request(self, shown: Shown | None = None) -> SearchRequest:
        """`shown`: what of each record to return (search_queries.Shown); None: all of it."""
        return SearchRequest(
            text=self.text,
            mode=self.mode,
            record_types=tuple(t.value for t in self.record_types or ()),
            k=self.k,
            filters=self.filters.to_filters() if self.filters else SearchFilters(),
            anchor_id=self.anchor_id,
            mmr=self.mmr,
            mmr_trade_off=self.mmr_trade_off,
            shown=shown,
        )
