"""Which models a claimed record is embedded with: a changed text with every index not retired
of its client's scopes (the client's active one first), an unchanged one with those it lacks.
Each model embeds its rows in one batch (its chunks behind any waiting query batch)."""

from __future__ import annotations

import logging
from typing import Any, Protocol

from app.retrieval.indexed_embedder import IndexedEmbedder
from app.retrieval.vector_index import VectorIndex, legacy_slot

log = logging.getLogger(__name__)


class RecordEmbedder(Protocol):
    model_name: str

    async def embed_batch(self, texts: list[str]) -> tuple[list[list[float]], list[bool]]: ...


class Targets(Protocol):
    async def live(self, client_id: str) -> list[VectorIndex]: ...

    def for_index(self, index: VectorIndex) -> RecordEmbedder: ...

    def invalidate(self) -> None: ...


class SingleTarget:
    """An embedder without the registry (tools, tests): its vectors go to `embedding`, as before
    several models."""

    def __init__(self, embedder: RecordEmbedder) -> None:
        self.embedder = embedder

    async def live(self, client_id: str) -> list[VectorIndex]:
        return [legacy_slot(self.embedder.model_name)]

    def for_index(self, index: VectorIndex) -> RecordEmbedder:
        return self.embedder

    def invalidate(self) -> None:
        return None


def targets_of(embedder: Any) -> Targets:
    return embedder if isinstance(embedder, IndexedEmbedder) else SingleTarget(embedder)


async def embed_rows(targets: Targets, rows: list[dict[str, Any]]) -> int:
    """Fills each prepared row's `vectors` ([{property, vector}]), `model` (its client's active
    model) and `truncated`; the number of rows given a vector."""
    groups: dict[str, tuple[VectorIndex, list[dict[str, Any]]]] = {}
    for row in rows:
        row["vectors"] = []
        if row["empty"]:
            continue
        live = await targets.live(str(row["client_id"]))
        row["model"] = live[0].model
        for index in live:
            if not row["unchanged"] or index.property not in row["present"]:
                groups.setdefault(index.property, (index, []))[1].append(row)
    for index, group in groups.values():
        texts = [row["embed_text"] for row in group]
        try:
            vectors, truncated = await targets.for_index(index).embed_batch(texts)
        except Exception:
            if any(row["model"] == index.model for row in group):
                raise  # a model search uses: the record fails (indexing.py isolates it)
            # A model being built that cannot embed must not stop the records being indexed
            # for the one search uses: they stay pending for it (index_rows.write_query).
            log.warning(
                "model %s could not embed %d records", index.model, len(group), exc_info=True
            )
            continue
        for row, vector, cut in zip(group, vectors, truncated, strict=True):
            row["vectors"].append({"property": index.property, "vector": vector})
            row["truncated"] = row["truncated"] or cut
    return sum(1 for row in rows if row["vectors"])
