"""The search query and the indexing status of the caller's records."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.resolve import run
from app.api.search.inputs import SearchInput
from app.api.search.outputs import SearchResult, SearchStatus, memory_index, search_hit
from app.api.search.shown import shown_records
from app.retrieval.memory_index import statuses as memory_indexes
from app.retrieval.pending import pending_count
from app.retrieval.search import SearchTimings, search


@strawberry.type
class SearchQueries:
    @strawberry.field(
        description="Find the caller's records by meaning (vector), words (BM25) or both "
        "(hybrid: reciprocal rank fusion), with filters, an optional graph anchor and MMR."
    )
    async def search(self, info: Info, input: SearchInput) -> SearchResult:
        timings = SearchTimings()
        request = input.to_request(shown=shown_records(info))
        hits = await run(info, search, request=request, timings=timings)
        return SearchResult(
            hits=[search_hit(hit) for hit in hits],
            embed_ms=round(timings.embed_ms, 3),
            search_ms=round(timings.search_ms, 3),
            total_ms=round(timings.total_ms, 3),
        )

    @strawberry.field(
        description="Records written but not searchable yet (embedding lag), and the memory "
        "indexes of the caller's records."
    )
    async def search_status(self, info: Info) -> SearchStatus:
        services = info.context.services
        client_id = info.context.caller().client_id
        pending = await pending_count(services.graph, client_id=client_id)
        target = await services.embedder.index_for(client_id)
        indexes = await memory_indexes(services.graph, client_id)
        return SearchStatus(
            pending=pending,
            lag_seconds=services.indexer.status.lag_seconds(),
            model=target.index.model,
            indexes=[memory_index(row) for row in indexes],
        )
