"""Benchmark: what the memory indexes (seeds 001, 004) cost a search. One run, one database,
cases taking turns call by call (bench._common.timed_rounds), the service's search function in
process (no HTTP, no model: the query vector is given, so only the search path is timed):

- `plain`: an embedder without the registry, which searches `searchable_embedding` as search
  did before several models (the baseline);
- `registry`: the service's IndexedEmbedder, the client without an index of its own (the
  deployment's active index: the same Cypher, plus the registry lookups);
- `own 16-d index`: a client whose own active index is a 16-dimension model's.

Two clients of N synthetic records each (bench._search_data's clustered 384-d vectors, plus a
random 16-d vector), written straight to Neo4j and deleted after, with the second client's
memory index.

Run: bash app/services/env.sh bench embedding_models [--records 2000] [--runs 200]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.domain.kernel.principal import Principal  # noqa: E402
from app.graph.executor import GraphExecutor  # noqa: E402
from app.model.enums import Role  # noqa: E402
from app.retrieval import memory_index as mi  # noqa: E402
from app.retrieval.embedder import Embedder  # noqa: E402
from app.retrieval.index_registry import IndexRegistry  # noqa: E402
from app.retrieval.index_rows import client_key  # noqa: E402
from app.retrieval.indexed_embedder import IndexedEmbedder  # noqa: E402
from app.retrieval.search import SearchMode, SearchRequest, search  # noqa: E402
from app.retrieval.vector_index import LEGACY_MODEL, for_model, legacy_slot  # noqa: E402
from app.runtime import connected  # noqa: E402
from app.settings import load_settings  # noqa: E402
from bench._common import report, summary, timed_rounds  # noqa: E402
from bench._search_data import NAMESPACE, STAMP, VectorSource  # noqa: E402

TINY = for_model("bench-embedding-models-16d", 16)
WRITE = f"""
UNWIND $rows AS row
CREATE (n:MemoryRecord:Searchable {{id: row.id}})
SET n.client_id = $client_id, n.created_at = $at, n.updated_at = $at, n.indexed_version = $at,
    n.namespace = $namespace, n.key = row.id, n.kind = 'semantic', n.text = row.text,
    n.priority = 5, n.active = true, n.version = 1, n.tags = [], n.record_type = 'MemoryRecord',
    n.search_client = $key, n.search_text = row.text, n.search_hash = row.id,
    n.embedding = row.embedding, n.{TINY.property} = row.tiny, n.search_truncated = false
"""
DELETE = "MATCH (n:MemoryRecord {client_id: $client_id}) DETACH DELETE n"
FORGET = "MATCH (m:MemoryIndex {scope: $client_id}) DELETE m"


class Given(Embedder):
    """Hands search the vector set for it: timings exclude the model."""

    def __init__(self, model_name: str, vector: list[float]) -> None:
        super().__init__(model_name=model_name)
        self.vector = vector

    async def embed(self, texts: list[str], *, scope: str = "") -> list[list[float]]:
        return [self.vector for _ in texts]


class GivenRouted(IndexedEmbedder):
    """The service's embedder, each model's embedder handing back a given vector."""

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        super().__init__(model_name=LEGACY_MODEL)
        self.given = {name: Given(name, vector) for name, vector in vectors.items()}

    def model(self, name: str) -> Embedder:
        return self.given[name]


async def _seed(graph: GraphExecutor, client_id: str, records: int) -> None:
    source, rng = VectorSource(), np.random.default_rng(11)
    vectors, _ = source.sample(rng, records)
    tiny = rng.standard_normal((records, TINY.dimensions))
    tiny /= np.linalg.norm(tiny, axis=1, keepdims=True)
    for start in range(0, records, 500):
        rows = [
            {
                "id": str(uuid.uuid4()),
                "text": f"synthetic record {i}",
                "embedding": [float(x) for x in vectors[i]],
                "tiny": [float(x) for x in tiny[i]],
            }
            for i in range(start, min(records, start + 500))
        ]
        params = {"rows": rows, "client_id": client_id, "key": client_key(client_id)}
        params |= {"at": STAMP, "namespace": NAMESPACE}
        await graph.write(WRITE, params)


async def _setup(graph: GraphExecutor, clients: list[str], records: int) -> None:
    for client_id in clients:
        await _seed(graph, client_id, records)
    own = clients[1]
    await mi.register(graph, own, TINY)
    await mi.ensure_vector_index(graph, TINY, wait_s=300)
    assert await mi.activate(graph, own, TINY) is not None, "the 16-d index is not complete"


def _cases(
    loop: asyncio.AbstractEventLoop, graph: GraphExecutor, clients: list[str], mode: SearchMode
) -> dict[str, Callable[[], None]]:
    query = VectorSource().queries(1, seed=5)[0]
    tiny = np.random.default_rng(5).standard_normal(TINY.dimensions)
    routed = GivenRouted({LEGACY_MODEL: query, TINY.model: [float(x) for x in tiny]})
    routed.registry = IndexRegistry(graph, default=legacy_slot(LEGACY_MODEL), refresh_s=2.0)
    plain = Given("precomputed", query)
    request = SearchRequest(text="synthetic record", mode=mode, k=10)

    def run(embedder: Embedder, client_id: str) -> Callable[[], None]:
        principal = Principal(client_id=client_id, role=Role.ANALYST, key_id="bench")

        async def once() -> None:
            hits = await search(graph, embedder, principal=principal, request=request)
            assert len(hits) == request.k, len(hits)

        return lambda: loop.run_until_complete(once())

    return {
        f"{mode.value} plain": run(plain, clients[0]),
        f"{mode.value} registry": run(routed, clients[0]),
        f"{mode.value} own 16-d index": run(routed, clients[1]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=2000, help="records per client")
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    settings = load_settings()
    loop = asyncio.new_event_loop()
    context = connected(settings)
    graph = loop.run_until_complete(context.__aenter__())
    clients = [f"bench-embedding-models-{n}-{uuid.uuid4().hex[:8]}" for n in (1, 2)]
    try:
        loop.run_until_complete(_setup(graph, clients, args.records))
        rows: dict[str, dict[str, float]] = {}
        for mode in (SearchMode.VECTOR, SearchMode.HYBRID):
            cases = _cases(loop, graph, clients, mode)
            samples = timed_rounds(cases, runs=args.runs, warmup=10, label=mode.value)
            rows |= {name: summary(values) for name, values in samples.items()}
        ratios = {
            f"{mode} {case} / plain": rows[f"{mode} {case}"]["median_ms"]
            / rows[f"{mode} plain"]["median_ms"]
            for mode in ("vector", "hybrid")
            for case in ("registry", "own 16-d index")
        }
        report(
            "embedding_models",
            sizes={"records_per_client": args.records, "runs": args.runs, "k": 10},
            rows=rows,
            ratios={name: round(value, 3) for name, value in ratios.items()},
            neo4j_server=settings.neo4j_uri,
        )
    finally:
        for client_id in clients:
            loop.run_until_complete(graph.write(DELETE, {"client_id": client_id}))
            loop.run_until_complete(graph.write(FORGET, {"client_id": client_id}))
        loop.run_until_complete(graph.write(f"DROP INDEX {TINY.index} IF EXISTS"))
        loop.run_until_complete(context.__aexit__(None, None, None))
        loop.close()


if __name__ == "__main__":
    main()
