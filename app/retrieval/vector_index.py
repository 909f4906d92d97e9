"""Where a model's embeddings live: one node property and one vector index per model.

A Neo4j vector index has one dimension, so each model gets its own property on the searchable
records and its own index over it. The first model (all-MiniLM-L6-v2, migration 0011) keeps
`embedding` and `searchable_embedding`; any other model gets `embedding__<slug>` and
`searchable_embedding__<slug>`, the slug made from its name (letters, digits, `_` and a hash of
the full name, so that two folders called `model` differ). Names reach Cypher text only from
here and only when they match the closed patterns below, never from raw input.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from app.model.search_index import VECTOR_PROPERTY_PREFIX

LEGACY_MODEL = "all-MiniLM-L6-v2"
LEGACY_PROPERTY = "embedding"
LEGACY_INDEX = "searchable_embedding"
LEGACY_DIMENSIONS = 384
PROPERTY_PREFIX = VECTOR_PROPERTY_PREFIX
INDEX_PREFIX = "searchable_embedding__"
_SLUG = r"[a-z0-9_]{1,48}"
PROPERTY_NAME = re.compile(rf"{LEGACY_PROPERTY}|{PROPERTY_PREFIX}{_SLUG}")
INDEX_NAME = re.compile(rf"{LEGACY_INDEX}|{INDEX_PREFIX}{_SLUG}")
MAX_DIMENSIONS = 4096  # Neo4j's vector index limit


@dataclass(frozen=True)
class VectorIndex:
    """One model's embeddings: the model, its property, its index and their dimension."""

    model: str
    property: str
    index: str
    dimensions: int

    def __post_init__(self) -> None:
        if not PROPERTY_NAME.fullmatch(self.property) or not INDEX_NAME.fullmatch(self.index):
            raise ValueError(f"not a vector property/index name: {self.property}/{self.index}")
        if not 1 <= self.dimensions <= MAX_DIMENSIONS:
            raise ValueError(f"vector dimensions must be 1-{MAX_DIMENSIONS}, not {self.dimensions}")


def slug(model: str) -> str:
    """The model's name as `[a-z0-9_]`: its last path part, cut short, and a hash of all of it."""
    tail = re.sub(r"[^a-z0-9]+", "_", Path(model.rstrip("/")).name.lower()).strip("_")
    digest = hashlib.sha256(model.encode()).hexdigest()[:10]
    return f"{tail[:30]}_{digest}" if tail else digest


def for_model(model: str, dimensions: int) -> VectorIndex:
    """The property and index of `model` (the first model keeps the original ones)."""
    if model == LEGACY_MODEL:
        return legacy_slot(model, dimensions)
    name = slug(model)
    return VectorIndex(model, f"{PROPERTY_PREFIX}{name}", f"{INDEX_PREFIX}{name}", dimensions)


def legacy_slot(model: str, dimensions: int = LEGACY_DIMENSIONS) -> VectorIndex:
    """`embedding` / `searchable_embedding`, which an embedder without the registry (tools,
    benchmarks, tests) reads and writes whatever its model, as before several models."""
    return VectorIndex(model, LEGACY_PROPERTY, LEGACY_INDEX, dimensions)


def is_vector_property(name: str) -> bool:
    """A model's embedding property (never part of a record's own state)."""
    return bool(PROPERTY_NAME.fullmatch(name))


def create_index_ddl(index: VectorIndex) -> str:
    """The index over the model's property, as migration 0011 made the first one: cosine,
    unquantised HNSW, filtered by client and record type inside the index. Parameter-free
    (schema commands take no parameters): every name and number here is validated."""
    VectorIndex(index.model, index.property, index.index, int(index.dimensions))  # re-checked
    config = (
        f"`vector.dimensions`: {int(index.dimensions)}, `vector.similarity_function`: 'cosine', "
        "`vector.quantization.enabled`: false, `vector.hnsw.m`: 16, "
        "`vector.hnsw.ef_construction`: 100"
    )
    return (
        f"CYPHER 25 CREATE VECTOR INDEX {index.index} IF NOT EXISTS FOR (n:Searchable) "
        f"ON n.{index.property} WITH [n.client_id, n.record_type] "
        f"OPTIONS {{indexConfig: {{{config}}}}}"
    )
