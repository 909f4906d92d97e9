"""Synthetic indexed records for the search benchmark, written straight to Neo4j as the
embedding worker leaves them (label Searchable, search_* properties, embedding,
indexed_version = updated_at, so the worker never picks them up).

The vectors are synthetic, not model output: 256 topic clusters, each a centre plus a random
24-dimensional subspace plus isotropic noise, normalised. Cosine similarities then look like
all-MiniLM-L6-v2's (same topic ~0.4, other topics ~0, nearest neighbours 0.6-0.75) and the
neighbourhoods have a low intrinsic dimension, as real text embeddings do, while the
neighbours of a query are many and close together, so the approximate index can miss some.

The records carry the configured model's name, so that `reembed` (which re-embeds records of
other models) leaves them alone; `reembed --all` would embed their synthetic text for real:
delete them first (search_scale --drop).

Clients: record i goes to the big client when i % 10 == 0 (10% of every size), else to one
of 998 regular clients in turn; a small client holds 20 records. 1,000 clients in all.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np

from app.graph.executor import GraphExecutor
from app.retrieval.index_rows import client_key

DIMENSIONS = 384
CLUSTERS = 256
SUBSPACE = 24
SPREAD, NOISE = 1.2, 0.5
PREFIX = "bench-search-"
BIG = f"{PREFIX}big"
SMALL = f"{PREFIX}small"
REGULAR = 998
SMALL_SIZE = 20
STAMP = datetime(2024, 1, 1, tzinfo=UTC)  # old: outside the worker's recent-window scans
NAMESPACE = "bench/search"

WRITE = """
UNWIND $rows AS row
CREATE (n:MemoryRecord:Searchable {id: row.id})
SET n.client_id = row.client_id, n.created_at = $at, n.updated_at = $at,
    n.indexed_version = $at, n.embedded_at = $at, n.namespace = $namespace, n.key = row.key,
    n.kind = 'semantic', n.text = row.text, n.priority = 5, n.active = true, n.version = 1,
    n.tags = [], n.record_type = 'MemoryRecord', n.search_client = row.client_key,
    n.search_text = row.text, n.search_hash = row.key, n.embedding = row.embedding,
    n.embedding_model = $model, n.search_truncated = false
"""
COUNT = """
MATCH (n:MemoryRecord) WHERE n.client_id STARTS WITH $prefix AND n.client_id <> $small
RETURN count(n) AS n
"""
COUNT_CLIENT = "MATCH (n:MemoryRecord {client_id: $client_id}) RETURN count(n) AS n"
INDEXED_TOTAL = "MATCH (n:Searchable) RETURN count(n) AS n"
DELETE_BATCH = """
MATCH (n:MemoryRecord) WHERE n.client_id STARTS WITH $prefix
WITH n LIMIT $batch DETACH DELETE n RETURN count(*) AS n
"""


def regular_client(n: int) -> str:
    return f"{PREFIX}{n:03d}"


def client_of(i: int) -> str:
    if i % 10 == 0:
        return BIG
    return regular_client(1 + (i - i // 10 - 1) % REGULAR)


class VectorSource:
    """Deterministic clustered unit vectors: the same seed gives the same records."""

    def __init__(self, seed: int = 7) -> None:
        rng = np.random.default_rng(seed)
        centres = rng.standard_normal((CLUSTERS, DIMENSIONS))
        self.centres = centres / np.linalg.norm(centres, axis=1, keepdims=True)
        self.bases = rng.standard_normal((CLUSTERS, SUBSPACE, DIMENSIONS)) / np.sqrt(DIMENSIONS)

    def sample(self, rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
        """n vectors (float32, unit length) and their cluster numbers."""
        clusters = rng.integers(0, CLUSTERS, n)
        latent = rng.standard_normal((n, SUBSPACE)) * SPREAD / np.sqrt(SUBSPACE)
        out = self.centres[clusters].copy()
        for cluster in np.unique(clusters):
            rows = clusters == cluster
            out[rows] += latent[rows] @ self.bases[cluster]
        out += rng.standard_normal((n, DIMENSIONS)) * NOISE / np.sqrt(DIMENSIONS)
        out /= np.linalg.norm(out, axis=1, keepdims=True)
        return out.astype(np.float32), clusters

    def records(self, start: int, stop: int) -> list[dict[str, Any]]:
        """Records start..stop-1 (the seed depends on start only: write in fixed batches)."""
        vectors, clusters = self.sample(np.random.default_rng([11, start]), stop - start)
        return [
            _row(i, client_of(i), int(cluster), vector)
            for i, vector, cluster in zip(range(start, stop), vectors, clusters, strict=True)
        ]

    def small_records(self) -> list[dict[str, Any]]:
        vectors, clusters = self.sample(np.random.default_rng([13]), SMALL_SIZE)
        return [
            _row(-1 - n, SMALL, int(cluster), vector)
            for n, (vector, cluster) in enumerate(zip(vectors, clusters, strict=True))
        ]

    def queries(self, n: int, seed: int) -> list[list[float]]:
        vectors, _ = self.sample(np.random.default_rng([17, seed]), n)
        return [list(map(float, vector)) for vector in vectors]


def _row(i: int, client_id: str, cluster: int, vector: np.ndarray) -> dict[str, Any]:
    return {
        "id": f"{PREFIX}{i}",
        "key": f"r{i}",
        "client_id": client_id,
        "client_key": client_key(client_id),
        "text": f"synthetic bench record {i} about topic {cluster}",
        "embedding": [float(x) for x in vector],
    }


async def bench_count(graph: GraphExecutor) -> int:
    """Records already written (the small client apart): the next record number."""
    rows = await graph.read(COUNT, {"prefix": PREFIX, "small": SMALL})
    return int(rows[0]["n"])


async def client_count(graph: GraphExecutor, client_id: str) -> int:
    return int((await graph.read(COUNT_CLIENT, {"client_id": client_id}))[0]["n"])


async def write(graph: GraphExecutor, rows: list[dict[str, Any]], *, model: str) -> None:
    params = {"rows": rows, "at": STAMP, "namespace": NAMESPACE, "model": model}
    await graph.write(WRITE, params)


async def indexed_total(graph: GraphExecutor) -> int:
    return int((await graph.read(INDEXED_TOTAL))[0]["n"])


async def drop_all(graph: GraphExecutor, *, batch: int = 5_000) -> int:
    """Deletes every bench-search record, in batches; returns how many."""
    total = 0
    while True:
        rows = await graph.write(DELETE_BATCH, {"prefix": PREFIX, "batch": batch})
        total += int(rows[0]["n"]) if rows else 0
        if not rows or int(rows[0]["n"]) == 0:
            return total
