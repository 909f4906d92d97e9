"""Records most similar to a given record (seed 002 get_similar): a vector search from the
record's own stored embedding, the record itself left out, with search's record types and
filters, inside the caller's client. No text is embedded: the neighbours of a record cost a
read of its vector and one index query (bench/similar.py).

The record is any searchable record of the caller. Another client's id is answered exactly
like an id that does not exist (NOT_FOUND); a record the embedding worker has not indexed yet,
or one with no text to index, has no embedding to search from (CONFLICT, saying which).
"""

from __future__ import annotations

import dataclasses
from functools import cache

from app.domain.kernel.errors import Conflict, NotFound
from app.domain.kernel.ids import check_id
from app.domain.kernel.principal import Principal
from app.graph.executor import GraphExecutor
from app.graph.identifiers import cypher_label
from app.retrieval import search_queries as q
from app.retrieval.embedder import Embedder
from app.retrieval.pending import PENDING
from app.retrieval.search import (
    SearchFilters,
    SearchHit,
    SearchMode,
    SearchRequest,
    SearchTimings,
    Shown,
    check_request,
    search,
)
from app.retrieval.searchable import SEARCHABLE


@cache
def record_state_query() -> str:
    """Whether the caller's searchable record `$id` is waiting for the embedding worker (each
    label's unique id index finds it)."""
    found = " UNION ".join(
        f"MATCH (n:{cypher_label(label)} {{id: $id}}) RETURN n" for label in SEARCHABLE
    )
    return (
        f"CALL () {{ {found} }} WITH n WHERE n.client_id = $client_id "
        f"RETURN {PENDING} AS pending, n.index_error AS error"
    )


async def source_vector(
    graph: GraphExecutor, principal: Principal, record_id: str, vector_property: str = "embedding"
) -> list[float]:
    """The stored embedding of the caller's record, of the model whose property is
    `vector_property` (see the module doc for the errors)."""
    params = {"ids": [record_id], "client_id": principal.client_id, "property": vector_property}
    rows = await graph.read(q.EMBEDDINGS, params)
    if rows and rows[0]["embedding"] is not None:
        return list(rows[0]["embedding"])
    state = await graph.read(
        record_state_query(), {"id": record_id, "client_id": principal.client_id}
    )
    if not state:
        raise NotFound(f"no searchable record with id {record_id}", id=record_id)
    if state[0]["pending"]:
        raise Conflict(
            f"record {record_id} is not indexed yet (searchStatus counts the pending records); "
            "retry once it is",
            id=record_id,
            field="recordId",
        )
    reason = state[0]["error"] or "it has no text to index"
    raise Conflict(f"record {record_id} has no embedding: {reason}", id=record_id, field="recordId")


async def similar(
    graph: GraphExecutor,
    embedder: Embedder,
    *,
    principal: Principal,
    record_id: str,
    k: int = 10,
    record_types: tuple[str, ...] = (),
    filters: SearchFilters | None = None,
    timings: SearchTimings | None = None,
    shown: Shown | None = None,
) -> list[SearchHit]:
    """The k records nearest to `record_id` by cosine of their embeddings, best first (`shown`:
    what of them, as search's)."""
    source = check_id(record_id, field="recordId")
    request = SearchRequest(
        text="",
        mode=SearchMode.VECTOR,
        record_types=record_types,
        k=k,
        filters=dataclasses.replace(filters or SearchFilters(), exclude_id=source),
        shown=shown,
    )
    check_request(request, vector_given=True)  # before any read
    # The record's vector of the client's active model, searched for in that model's index.
    target = await embedder.index_for(principal.client_id)
    vector = await source_vector(graph, principal, source, target.index.property)
    target = dataclasses.replace(target, vector=vector)
    return await search(
        graph, embedder, principal=principal, request=request, timings=timings, vector=target
    )
