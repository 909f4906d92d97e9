"""Start-up's vector indexes (app/retrieval/index_setup.py): every index in use is created, and
start-up waits for those search reads, not for a client's index that `reembed` is still
filling (which can take minutes to come online)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from app.retrieval.index_setup import INDEX_ONLINE_WAIT_S, open_registry
from app.retrieval.vector_index import LEGACY_MODEL, for_model

SEARCHED = for_model("/models/searched", 16)
FILLING = for_model("/models/filling", 32)
RETIRED = for_model("/models/retired", 8)


class RecordingGraph:
    """Answers the registry's read with fixed rows and records every write."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows, self.writes = rows, []  # type: list[dict[str, Any]], list[tuple[str, Any]]

    async def read(self, query: str, params: Any = None) -> list[dict[str, Any]]:
        return self.rows

    async def write(self, query: str, params: Any = None) -> list[dict[str, Any]]:
        self.writes.append((query, params))
        return []


def _row(scope: str, index: Any, status: str) -> dict[str, Any]:
    return {
        "scope": scope,
        "model": index.model,
        "dimensions": index.dimensions,
        "status": status,
        "activated_at": None,
    }


def test_start_up_creates_every_index_in_use_and_waits_only_for_searched_ones() -> None:
    graph = RecordingGraph(
        [
            _row("", SEARCHED, "active"),
            _row("client-a", FILLING, "building"),
            _row("client-b", RETIRED, "retired"),
        ]
    )
    prepared: list[str] = []  # the models made ready to load (their ONNX export)

    def model(name: str) -> SimpleNamespace:
        return SimpleNamespace(prepare_sync=lambda: prepared.append(name))

    embedder = SimpleNamespace(model_name=LEGACY_MODEL, registry=None, model=model)
    asyncio.run(open_registry(graph, embedder, refresh_s=60))  # type: ignore[arg-type]
    created = " ".join(q for q, _ in graph.writes if "CREATE VECTOR INDEX" in q)
    named = {index.index for index in (SEARCHED, FILLING, RETIRED) if index.index in created}
    assert named == {SEARCHED.index, FILLING.index}
    waits = [p for q, p in graph.writes if "awaitIndex" in q]
    assert waits == [{"name": SEARCHED.index, "wait": INDEX_ONLINE_WAIT_S}]
    assert embedder.registry is not None
    assert prepared == [LEGACY_MODEL, SEARCHED.model, FILLING.model]  # not the retired one
