"""Search over every searchable record of the caller: vector, keyword (BM25) or hybrid (RRF),
with an optional graph-proximity boost from an anchor record and optional MMR diversity."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, cast

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.principal import Principal
from app.graph.executor import GraphExecutor
from app.model.search_index import is_hidden_property
from app.retrieval import search_queries as q
from app.retrieval.embedder import Embedder, QueryVector
from app.retrieval.fusion import (
    demote_repeats,
    lift_summaries,
    maximal_marginal_relevance,
    neighbour_boost,
    reciprocal_rank_fusion,
)
from app.retrieval.keyword import keyword_rows
from app.retrieval.search_queries import SearchFilters, Shown
from app.retrieval.search_slots import search_slot
from app.retrieval.searchable import SEARCHABLE

__all__ = ["SearchFilters", "SearchHit", "SearchMode", "SearchRequest", "Shown", "search"]
MAX_K = 100
MAX_TEXT = 2_000
# Hybrid RRF constant: below the customary 60 because two signals are fused and the first
# ranks of each matter most (LoCoMo turns: recall@5 +0.05 over k=60, bench/locomo.py).
HYBRID_RRF_K = 10
# Hybrid: a conversation turn gains this share of the best fused score of the turns next to it.
NEIGHBOUR_WEIGHT = 0.5
# Hybrid: of a record and the one record it was derived from, the lower scored keeps this share
# of its score (LoCoMo, all records: recall@5/10 0.743/0.819 -> 0.762/0.828; 0 gave the same,
# 0.75 0.751/0.824: issue 19).
REPEAT_FACTOR = 0.5
# Hybrid: a record derived from two or more records gains this share of the best score among
# those of them that are candidates, as a turn does from its neighbours (NEIGHBOUR_WEIGHT).
# LoCoMo, all records, recall@5/10/25 0.762/0.828/0.893 -> 0.811/0.884/0.932 (issue 19).
SUMMARY_WEIGHT = 0.5


class SearchMode(StrEnum):
    VECTOR = "vector"
    KEYWORD = "keyword"
    HYBRID = "hybrid"


@dataclass(frozen=True)
class SearchRequest:
    text: str
    mode: SearchMode = SearchMode.HYBRID
    record_types: tuple[str, ...] = ()
    k: int = 10
    filters: SearchFilters = field(default_factory=SearchFilters)
    anchor_id: str | None = None
    mmr: bool = False
    mmr_trade_off: float = 0.5
    # What of each record is returned (the caller's selection); None: every property.
    shown: Shown | None = None


@dataclass
class SearchHit:
    record_id: str
    record_type: str
    record: dict[str, Any]
    score: float = 0.0
    vector_score: float | None = None
    vector_rank: int | None = None
    keyword_score: float | None = None
    keyword_rank: int | None = None
    graph_distance: int | None = None
    why: list[str] = field(default_factory=list)


@dataclass
class SearchTimings:
    """embed_ms: the query's embedding; search_ms: the graph phase, from its slot on; total_ms:
    the whole search. A hybrid search's keyword query runs while its text is embedded, so the
    total is less than the two others together."""

    embed_ms: float = 0.0
    search_ms: float = 0.0
    total_ms: float = 0.0


def check_request(request: SearchRequest, *, vector_given: bool = False) -> None:
    """`vector_given`: a vector search from a stored vector (similar.py), which has no text."""
    if vector_given and request.mode is not SearchMode.VECTOR:
        raise ValidationFailed("a search from a stored vector is a vector search", field="mode")
    if not vector_given and (not request.text.strip() or len(request.text) > MAX_TEXT):
        raise ValidationFailed(f"text must be 1-{MAX_TEXT} characters", field="text")
    if not 1 <= request.k <= MAX_K:
        raise ValidationFailed(f"k must be between 1 and {MAX_K}", field="k")
    unknown = set(request.record_types) - set(SEARCHABLE)
    if unknown:
        raise ValidationFailed(
            f"unknown record types {sorted(unknown)}; searchable: {sorted(SEARCHABLE)}",
            field="recordTypes",
        )
    if not 0 <= request.mmr_trade_off <= 1:
        raise ValidationFailed("mmrTradeOff must be between 0 and 1", field="mmrTradeOff")


async def search(
    graph: GraphExecutor,
    embedder: Embedder,
    *,
    principal: Principal,
    request: SearchRequest,
    timings: SearchTimings | None = None,
    vector: list[float] | QueryVector | None = None,
) -> list[SearchHit]:
    """`vector`: search from it instead of the embedded text (similar.py)."""
    check_request(request, vector_given=vector is not None)
    timings = timings or SearchTimings()
    where, params = q.filter_clause(request.filters)
    pool = _pool_size(request)
    keep = request.k if _plain_vector(request) else pool
    params |= request.shown.params if request.shown else {}
    # After the projection's: the search is always the principal's, whatever it was built for.
    params |= {"client_id": principal.client_id, "pool": pool, "keep": keep}
    params["record_types"] = list(request.record_types)
    records: dict[str, dict[str, Any]] = {}
    rankings: dict[str, list[str]] = {}
    scores: dict[str, dict[str, float]] = {}
    began = time.perf_counter()
    # Embedded from now on (in a batch with other searches' texts, also while this one waits
    # for a slot), beside the keyword query, which needs no vector.
    aiming = asyncio.ensure_future(_target(embedder, request, principal.client_id, vector, timings))
    try:
        if request.mode is SearchMode.VECTOR:  # nothing to do beside its embedding
            await aiming
        async with search_slot():
            started = time.perf_counter()
            for signal, rows in await _signals(graph, request, where, params, aiming, pool):
                _collect(request, signal, rows, records, rankings, scores)
            target = await aiming
            params |= {"vector": target.vector or None, "property": target.index.property}
            hits = await _rank(graph, request, params, records, rankings, scores, target.hidden)
    finally:
        _settle(aiming)
    timings.search_ms = (time.perf_counter() - started) * 1000
    timings.total_ms = (time.perf_counter() - began) * 1000
    return hits


def _settle(aiming: asyncio.Future[QueryVector]) -> None:
    """Stops the embedding a search no longer waits for, and takes its error, if any, so that
    none is logged as never retrieved (the search raised its own)."""
    if not aiming.done():
        aiming.cancel()
    elif not aiming.cancelled():
        aiming.exception()


async def _target(
    embedder: Embedder,
    request: SearchRequest,
    scope: str,
    vector: list[float] | QueryVector | None,
    timings: SearchTimings,
) -> QueryVector:
    """The index of the client's active model and the vector to look for there: the text
    embedded by that model, or the stored vector given (none for a keyword search)."""
    if isinstance(vector, QueryVector):
        return vector
    if vector is not None or request.mode is SearchMode.KEYWORD:
        return replace(await embedder.index_for(scope), vector=vector or [])
    started = time.perf_counter()
    target = await embedder.query_vector(request.text, scope=scope)
    timings.embed_ms = (time.perf_counter() - started) * 1000
    return target


def _pool_size(request: SearchRequest) -> int:
    """Candidates per signal: fusion, MMR and the anchor need a deep pool; plain vector search
    asks the index for 2k. At 1M records, for a client of 100k, the filtered HNSW search finds
    93.6% of the exact top 10 when asked for 10, 95.4% for 20, at +2 ms (bench/search_scale)."""
    plain_vector = _plain_vector(request)
    pool = max(request.k * 2, request.k + 10) if plain_vector else max(request.k * 3, 50)
    return pool * (4 if q.has_filters(request.filters) else 1)


def _plain_vector(request: SearchRequest) -> bool:
    """Vector search whose ranking is the index's own: nothing fused, diversified or boosted."""
    return request.mode is SearchMode.VECTOR and not request.mmr and not request.anchor_id


async def _signals(
    graph: GraphExecutor,
    request: SearchRequest,
    where: str,
    params: dict[str, Any],
    aiming: Awaitable[QueryVector],
    pool: int,
) -> list[tuple[str, list[Any]]]:
    """Each signal's rows, vector first. A hybrid search asks both at once, so it waits for the
    slower only: the keyword query, or the query's embedding and then the vector query (LoCoMo:
    server p50 29 -> 15 ms in process, the embedding apart)."""
    asked: dict[str, Awaitable[list[Any]]] = {}
    if request.mode is not SearchMode.KEYWORD:
        asked["vector"] = _vector_rows(graph, request, where, params, aiming)
    if request.mode is not SearchMode.VECTOR:
        asked["keyword"] = keyword_rows(
            graph,
            text=request.text,
            record_types=request.record_types,
            pool=pool,
            where=where,
            params=params,
            ranked=q.ranked(request.shown),
        )
    answers = await asyncio.gather(*asked.values(), return_exceptions=True)
    for answer in answers:  # each ran to its end: nothing is left running unobserved
        if isinstance(answer, BaseException):
            raise answer
    return list(zip(asked, cast(list[list[Any]], answers), strict=True))


async def _vector_rows(
    graph: GraphExecutor,
    request: SearchRequest,
    where: str,
    params: dict[str, Any],
    aiming: Awaitable[QueryVector],
) -> list[Any]:
    target = await aiming
    params = params | {"vector": target.vector, "property": target.index.property}
    typed, index = bool(request.record_types), target.index
    plain = _plain_vector(request)
    shown = _shown(request, target.hidden) if plain else q.ranked(request.shown)
    query = q.vector_query(where, typed=typed, shown=shown, index=index)
    rows = await _found(graph, query, params)
    # The conditions after the index (liveness always, the filters when set) can thin the
    # candidates: inactive or expired memory records stay in the index. Exact is cheap here.
    if len(rows) < request.k:
        query = q.exact_vector_query(where, typed=typed, shown=shown, index=index)
        rows = await _found(graph, query, params)
    return rows


async def _found(graph: GraphExecutor, query: str, params: dict[str, Any]) -> list[Any]:
    """The rows {record, score} of a query returning them as one row (search_queries.found)."""
    rows = await graph.read_plain(query, params)
    return list(rows[0]["found"]) if rows else []


def _shown(request: SearchRequest, hidden: tuple[str, ...]) -> str:
    """The projection of the records a search returns: the caller's, else every property but
    the hidden ones (`hidden`: the vectors of the models the search leaves out)."""
    return request.shown.projection if request.shown else q.projection(hidden)


def _returned(request: SearchRequest, record: dict[str, Any]) -> dict[str, Any]:
    """A record read with _shown's projection, as search returns it: the caller's as it is;
    every property's without the hidden ones, which that projection nulled."""
    if request.shown:
        return record
    return {k: v for k, v in record.items() if not is_hidden_property(k)}


def _collect(
    request: SearchRequest,
    signal: str,
    rows: list[Any],
    records: dict[str, dict[str, Any]],
    rankings: dict[str, list[str]],
    scores: dict[str, dict[str, float]],
) -> None:
    """The rows' records are as ranked (RANKED), or as returned in a plain vector search."""
    ranked = rankings.setdefault(signal, [])
    seen = scores.setdefault(signal, {})
    returned = _plain_vector(request)
    for row in rows:  # rows of read_plain: already plain values
        record_id = str(row["record"]["id"])
        if record_id in seen:
            continue
        records[record_id] = _returned(request, row["record"]) if returned else row["record"]
        ranked.append(record_id)
        scores[signal][record_id] = float(row["score"])


async def _rank(
    graph: GraphExecutor,
    request: SearchRequest,
    params: dict[str, Any],
    records: dict[str, dict[str, Any]],
    rankings: dict[str, list[str]],
    scores: dict[str, dict[str, float]],
    hidden: tuple[str, ...],
) -> list[SearchHit]:
    distances = await _graph_distances(graph, request, params, list(records))
    if distances:
        near = sorted((d, rid) for rid, d in distances.items() if d is not None)
        rankings["graph"] = [rid for _, rid in near]
    fused = reciprocal_rank_fusion(rankings, k=HYBRID_RRF_K)
    if request.mode is SearchMode.HYBRID:
        fused = neighbour_boost(fused, _turn_neighbours(records), weight=NEIGHBOUR_WEIGHT)
        sources = {rid: record.get("derived_from") or [] for rid, record in records.items()}
        fused = demote_repeats(fused, sources, factor=REPEAT_FACTOR)
        fused = lift_summaries(fused, sources, weight=SUMMARY_WEIGHT)
    ordered = sorted(fused, key=lambda rid: -fused[rid])
    if request.mmr:
        vectors = await _vectors(graph, params, ordered[: request.k * 4])
        ordered = maximal_marginal_relevance(
            ordered[: request.k * 4], fused, vectors, k=request.k, trade_off=request.mmr_trade_off
        )
    kept = ordered[: request.k]
    if not _plain_vector(request):  # the signals gave what ranking needs
        records = await _kept(graph, request, params, records, kept, hidden)
    return [
        _hit(rid, records[rid], fused[rid], rankings, scores, distances)
        for rid in kept
        if rid in records  # gone since it was found
    ]


def _turn_neighbours(records: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """Among the candidates: each conversation event's events before and after it."""
    at = {
        (record.get("thread_id"), record["sequence"]): rid
        for rid, record in records.items()
        if record.get("record_type") == "ConversationEvent" and record.get("sequence") is not None
    }
    return {
        rid: [at[(thread, seq + step)] for step in (-1, 1) if (thread, seq + step) in at]
        for (thread, seq), rid in at.items()
    }


async def _graph_distances(
    graph: GraphExecutor, request: SearchRequest, params: dict[str, Any], ids: list[str]
) -> dict[str, int | None]:
    if not request.anchor_id or not ids:
        return {}
    rows = await graph.read(
        q.graph_distance_query(),
        {"anchor_id": request.anchor_id, "client_id": params["client_id"], "ids": ids},
    )
    return {row["id"]: row["distance"] for row in rows}


async def _kept(
    graph: GraphExecutor,
    request: SearchRequest,
    params: dict[str, Any],
    candidates: dict[str, dict[str, Any]],
    kept: list[str],
    hidden: tuple[str, ...],
) -> dict[str, dict[str, Any]]:
    """The kept records as returned: as the signal queries projected them for every candidate
    (Shown.per_candidate), else read."""
    if request.shown and request.shown.per_candidate:
        return {rid: candidates[rid][q.SHOWN_KEY] for rid in kept}
    return await _records(graph, request, params, kept, hidden)


async def _records(
    graph: GraphExecutor,
    request: SearchRequest,
    params: dict[str, Any],
    ids: list[str],
    hidden: tuple[str, ...],
) -> dict[str, dict[str, Any]]:
    if not ids:
        return {}
    query = q.records_query(_shown(request, hidden))
    shown = request.shown.params if request.shown else {}
    rows = await graph.read_plain(query, {**shown, "ids": ids, "client_id": params["client_id"]})
    found = rows[0]["found"] if rows else []
    return {str(record["id"]): _returned(request, record) for record in found}


async def _vectors(
    graph: GraphExecutor, params: dict[str, Any], ids: list[str]
) -> dict[str, list[float]]:
    own = {"ids": ids, "client_id": params["client_id"], "property": params["property"]}
    rows = await graph.read(q.EMBEDDINGS, own)
    return {row["id"]: list(row["embedding"]) for row in rows if row["embedding"] is not None}


def _hit(
    record_id: str,
    record: dict[str, Any],
    score: float,
    rankings: dict[str, list[str]],
    scores: dict[str, dict[str, float]],
    distances: dict[str, int | None],
) -> SearchHit:
    hit = SearchHit(record_id, str(record.get("record_type", "")), record, score)
    if record_id in scores.get("vector", {}):
        hit.vector_score = scores["vector"][record_id]
        hit.vector_rank = rankings["vector"].index(record_id) + 1
        hit.why.append(f"vector rank {hit.vector_rank} (cosine score {hit.vector_score:.3f})")
    if record_id in scores.get("keyword", {}):
        hit.keyword_score = scores["keyword"][record_id]
        hit.keyword_rank = rankings["keyword"].index(record_id) + 1
        hit.why.append(f"keyword rank {hit.keyword_rank} (BM25 {hit.keyword_score:.2f})")
    if distances.get(record_id) is not None:
        hit.graph_distance = distances[record_id]
        hit.why.append(f"{hit.graph_distance} hops from the anchor record")
    return hit
