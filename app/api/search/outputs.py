"""What search returns: each hit's record (any searchable type), its scores and why it matched."""

from __future__ import annotations

from typing import Any

import strawberry

from app.api.search.record_types import SearchRecord
from app.api.types.base import NODE_TYPES
from app.model.enums import MemoryIndexStatus
from app.retrieval.search import SearchHit as FoundHit


@strawberry.type
class SearchHit:
    record: SearchRecord = strawberry.field(
        description="The record, as selected: in `search` and `similar` its relationship "
        "fields too; elsewhere (`getContext`) its own fields only."
    )
    record_id: strawberry.ID
    record_type: str
    score: float = strawberry.field(description="The fused score the results are ordered by.")
    vector_score: float | None = strawberry.field(
        description="Vector similarity, (1 + cosine) / 2, 0-1."
    )
    vector_rank: int | None
    keyword_score: float | None = strawberry.field(description="BM25 score.")
    keyword_rank: int | None
    graph_distance: int | None = strawberry.field(description="Hops from the anchor record.")
    why: list[str]


@strawberry.type
class SearchResult:
    hits: list[SearchHit]
    embed_ms: float = strawberry.field(description="Time spent embedding the query text.")
    search_ms: float = strawberry.field(
        description="Server time of the index queries and ranking (in a hybrid search, from "
        "the keyword query's start: it runs while the query text is embedded)."
    )
    total_ms: float = strawberry.field(
        description="Server time of the whole search, the query's embedding included: less "
        "than embedMs + searchMs when they overlap."
    )


@strawberry.type(
    description="A memory index: one embedding model's vectors of the deployment's records or "
    "of the caller's own (seeds 001, 004)."
)
class MemoryIndex:
    model: str = strawberry.field(description="The model: an installed package or a folder.")
    dimensions: int
    status: MemoryIndexStatus
    client_scoped: bool = strawberry.field(
        description="The caller's own index (else the deployment's, whose counts are not shown)."
    )
    done: int | None = strawberry.field(description="Records of the scope that have its vector.")
    total: int | None = strawberry.field(description="Searchable records of the scope.")


@strawberry.type(description="How far the embedding worker is behind.")
class SearchStatus:
    pending: int = strawberry.field(description="The caller's records not yet indexed.")
    lag_seconds: float = strawberry.field(description="Age of the oldest pending record.")
    model: str = strawberry.field(description="The model of the index the caller's search uses.")
    indexes: list[MemoryIndex] = strawberry.field(
        description="The memory indexes of the caller's scopes: the active one is searched; "
        "a building one is being filled by `reembed` (done of total)."
    )


def memory_index(row: dict[str, Any]) -> MemoryIndex:
    own = bool(row["scope"])
    return MemoryIndex(
        model=str(row["model"]),
        dimensions=int(row["dimensions"]),
        status=MemoryIndexStatus(row["status"]),
        client_scoped=own,
        done=row["done"] if own else None,
        total=row["total"] if own else None,
    )


def search_hit(found: FoundHit) -> SearchHit:
    record: Any = NODE_TYPES[found.record_type].from_row(found.record)
    return SearchHit(
        record=record,
        record_id=strawberry.ID(found.record_id),
        record_type=found.record_type,
        score=found.score,
        vector_score=found.vector_score,
        vector_rank=found.vector_rank,
        keyword_score=found.keyword_score,
        keyword_rank=found.keyword_rank,
        graph_distance=found.graph_distance,
        why=found.why,
    )
