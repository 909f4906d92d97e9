"""The similar query (seed 002 get_similar): the caller's records nearest to one of them."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.resolve import run
from app.api.search.inputs import SearchFiltersInput
from app.api.search.outputs import SearchResult, search_hit
from app.api.search.record_types import SearchRecordType
from app.api.search.shown import shown_records
from app.retrieval.search import SearchTimings
from app.retrieval.similar import similar


@strawberry.type
class SimilarQueries:
    @strawberry.field(
        description="The caller's records most similar to record `recordId` (any searchable "
        "record of theirs) by its stored embedding: vector search from it, itself left out, "
        "best first, with search's record types and filters. NOT_FOUND for an id the caller "
        "does not have; CONFLICT while the record is not indexed yet (see searchStatus)."
    )
    async def similar(
        self,
        info: Info,
        record_id: strawberry.ID,
        k: int = 10,
        record_types: list[SearchRecordType] | None = None,
        filters: SearchFiltersInput | None = None,
    ) -> SearchResult:
        timings = SearchTimings()
        hits = await run(
            info,
            similar,
            record_id=str(record_id),
            k=k,
            record_types=tuple(t.value for t in record_types or ()),
            filters=filters.to_filters() if filters else None,
            timings=timings,
            shown=shown_records(info),
        )
        return SearchResult(
            hits=[search_hit(hit) for hit in hits],
            embed_ms=0.0,
            search_ms=round(timings.search_ms, 3),
            total_ms=round(timings.total_ms, 3),
        )
