"""The service's embedder: the configured model, and the other models of the memory indexes on
the same threads. A search embeds its text with the model of the client's active index and
looks in that index; the embedding worker embeds a record for each index of its client that is
not retired (app/retrieval/vectors.py)."""

from __future__ import annotations

from typing import Any

from app.retrieval.embedder import Embedder, QueryVector
from app.retrieval.index_registry import IndexRegistry
from app.retrieval.vector_index import VectorIndex, legacy_slot


class IndexedEmbedder(Embedder):
    """Without its `registry` (set once the graph is open: app/runtime/services.py) it is a
    plain Embedder."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.registry: IndexRegistry | None = None
        self._models: dict[str, Embedder] = {}

    def model(self, name: str) -> Embedder:
        """The embedder of the model `name` (this one's threads)."""
        if name == self.model_name:
            return self
        if name not in self._models:
            self._models[name] = self.sibling(name)
        return self._models[name]

    async def query_vector(self, text: str, *, scope: str) -> QueryVector:
        if self.registry is None:
            return await super().query_vector(text, scope=scope)
        view = await self.registry.view()
        index = view.active(scope)
        vector = (await self.model(index.model).embed([text], scope=scope))[0]
        if len(vector) != index.dimensions:
            raise ValueError(
                f"{index.model} gave {len(vector)} dimensions; its index has {index.dimensions}"
            )
        return QueryVector(index, vector, view.hidden(scope))

    async def index_for(self, scope: str) -> QueryVector:
        if self.registry is None:
            return await super().index_for(scope)
        view = await self.registry.view()
        return QueryVector(view.active(scope), [], view.hidden(scope))

    async def live(self, client_id: str) -> list[VectorIndex]:
        if self.registry is None:
            return [legacy_slot(self.model_name)]
        return (await self.registry.view()).live(client_id)

    def for_index(self, index: VectorIndex) -> Embedder:
        return self.model(index.model)

    def invalidate(self) -> None:
        if self.registry is not None:
            self.registry.invalidate()

    def stats(self) -> dict[str, int]:
        """The counters of every model's embedder together."""
        counts = super().stats()
        for other in self._models.values():
            for name, value in other.stats().items():
                counts[name] += value
        return counts
