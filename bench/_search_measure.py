"""Search timings and recall for one client: the service's search path, the raw Cypher 25
SEARCH query through the driver, and exact (brute-force cosine) search as the reference."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from app.domain.kernel.principal import Principal
from app.graph.executor import GraphExecutor
from app.model.enums import Role
from app.retrieval.embedder import Embedder
from app.retrieval.search import SearchMode, SearchRequest, SearchTimings, search
from bench._common import summary

K = 10
# The baseline: the same in-index client filter as the service, nothing after it.
RAW = (
    "CYPHER 25 MATCH (n:Searchable) SEARCH n IN (VECTOR INDEX searchable_embedding "
    "FOR $vector WHERE n.client_id = $client_id LIMIT $limit) SCORE AS score "
    "RETURN n.id AS id ORDER BY score DESC"
)
EXACT = (
    "MATCH (n:Searchable) WHERE n.client_id = $client_id AND n.record_type IS NOT NULL "
    "WITH n, vector.similarity.cosine(n.embedding, $vector) AS score "
    "ORDER BY score DESC LIMIT $limit RETURN n.id AS id"
)
Search = Callable[[list[float]], Awaitable[tuple[list[str], float]]]


class PrecomputedEmbedder(Embedder):
    """Hands search the query vector it was given, so that timings exclude embedding."""

    def __init__(self, dimensions: int) -> None:
        super().__init__(model_name="precomputed", dimensions=dimensions)
        self.vector: list[float] = []

    async def embed(self, texts: list[str], *, scope: str = "") -> list[list[float]]:
        return [self.vector for _ in texts]


@dataclass
class ClientResult:
    client_id: str
    records: int
    cases: dict[str, dict[str, float]]


def recall(found: list[str], exact: list[str]) -> float:
    return len(set(found[:K]) & set(exact)) / len(exact) if exact else 1.0


def searches(graph: GraphExecutor, client_id: str, pool: int) -> dict[str, Search]:
    embedder = PrecomputedEmbedder(384)
    principal = Principal(client_id=client_id, role=Role.ANALYST, key_id="bench")

    async def service(vector: list[float]) -> tuple[list[str], float]:
        embedder.vector, timings = vector, SearchTimings()
        request = SearchRequest(text="synthetic", mode=SearchMode.VECTOR, k=K)
        hits = await search(graph, embedder, principal=principal, request=request, timings=timings)
        return [hit.record_id for hit in hits], timings.search_ms

    def cypher(query: str, limit: int) -> Search:
        async def run(vector: list[float]) -> tuple[list[str], float]:
            params = {"vector": vector, "client_id": client_id, "limit": limit}
            started = time.perf_counter()
            async with graph.driver.session(database=graph.database) as session:
                result = await session.run(query, params)
                ids = [record["id"] async for record in result]
            return ids[:K], (time.perf_counter() - started) * 1000

        return run

    return {
        "service": service,
        f"raw SEARCH LIMIT {pool}": cypher(RAW, pool),
        f"raw SEARCH LIMIT {K}": cypher(RAW, K),
        "exact": cypher(EXACT, K),
    }


async def measure_client(
    graph: GraphExecutor,
    client_id: str,
    records: int,
    queries: list[list[float]],
    *,
    runs: int,
    pool: int,
) -> ClientResult:
    """Recall of each case against exact over every query, then interleaved timed rounds (one
    call of each case per round, so that load from others falls on all cases alike)."""
    cases = searches(graph, client_id, pool)
    exact_fn = cases.pop("exact")
    reference, exact_ms = [], []
    for n, vector in enumerate(queries):
        ids, ms = await exact_fn(vector)
        reference.append(ids)
        exact_ms.append(ms)
        _progress(f"{client_id}: exact", n + 1, len(queries))
    recalls: dict[str, list[float]] = {name: [] for name in cases}
    returned: dict[str, list[int]] = {name: [] for name in cases}
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for name, fn in cases.items():
        for vector, exact in zip(queries, reference, strict=True):
            ids, _ = await fn(vector)  # also the warm-up
            recalls[name].append(recall(ids, exact))
            returned[name].append(len(ids))
    for n in range(runs):
        vector = queries[n % len(queries)]
        for name, fn in cases.items():
            samples[name].append((await fn(vector))[1])
        _progress(f"{client_id}: timed rounds", n + 1, runs)
    out: dict[str, dict[str, Any]] = {}
    for name in cases:
        out[name] = summary(samples[name]) | _recall_stats(recalls[name])
        out[name]["returned_min"] = min(returned[name])
    out["exact"] = summary(exact_ms) | {"recall_at_10": 1.0, "recall_at_10_min": 1.0}
    out["exact"]["returned_min"] = min(len(ids) for ids in reference)
    return ClientResult(client_id, records, out)


def _recall_stats(values: list[float]) -> dict[str, float]:
    return {"recall_at_10": round(statistics.fmean(values), 4), "recall_at_10_min": min(values)}


def _progress(label: str, done: int, total: int) -> None:
    if done % max(1, total // 10) == 0 or done == total:
        end = "\n" if done == total else ""
        print(f"\r  {label}: {done}/{total}", end=end, file=sys.stderr, flush=True)
