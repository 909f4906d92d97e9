"""The items of a bounded context and the search every section shares.

Relevance is the cosine similarity of the task text and the record's indexed text (the vector
index reports (1 + cosine) / 2; it is turned back into a cosine here). A record counts as
relevant from MIN_RELEVANCE up: with all-MiniLM-L6-v2, texts on the same topic score about 0.4
and more, unrelated ones below 0.15.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.domain.kernel.principal import Principal
from app.graph.executor import GraphExecutor
from app.retrieval.budget import estimate_tokens
from app.retrieval.embedder import Embedder, QueryVector
from app.retrieval.search import SearchFilters, SearchHit, SearchMode, SearchRequest, search

MIN_RELEVANCE = 0.25


@dataclass
class ContextItem:
    """One record in a context: `content` is what the agent reads and what the tokens count."""

    section: str
    content: dict[str, Any]
    score: float | None = None
    why: list[str] = field(default_factory=list)
    tokens: int = 0

    def __post_init__(self) -> None:
        self.tokens = estimate_tokens(self.content)

    @property
    def id(self) -> str:
        return str(self.content["id"])


@dataclass
class Task:
    """What every section search shares: the caller, the text and the embedder."""

    graph: GraphExecutor
    embedder: Embedder
    principal: Principal
    text: str

    async def search(
        self, record_type: str, k: int, filters: SearchFilters | None = None
    ) -> list[SearchHit]:
        request = SearchRequest(
            text=self.text,
            mode=SearchMode.HYBRID,
            record_types=(record_type,),
            k=k,
            filters=filters or SearchFilters(),
        )
        return await search(self.graph, self.embedder, principal=self.principal, request=request)


def cosine_of(hit: SearchHit) -> float:
    """The hit's cosine similarity to the task; 0 when only the keyword search found it."""
    return 0.0 if hit.vector_score is None else 2 * hit.vector_score - 1


def relevant(hit: SearchHit) -> bool:
    return cosine_of(hit) >= MIN_RELEVANCE


def pick(record: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    return {name: record.get(name) for name in names}


class TaskEmbedder(Embedder):
    """Embeds the task text once for every section's search (with the client's model)."""

    def __init__(self, inner: Embedder) -> None:
        super().__init__(model_name=inner.model_name, dimensions=inner.dimensions)
        self._inner = inner
        self._vectors: dict[str, list[float]] = {}
        self._queries: dict[tuple[str, str], QueryVector] = {}

    async def query_vector(self, text: str, *, scope: str) -> QueryVector:
        if (scope, text) not in self._queries:
            self._queries[scope, text] = await self._inner.query_vector(text, scope=scope)
        return self._queries[scope, text]

    async def index_for(self, scope: str) -> QueryVector:
        return await self._inner.index_for(scope)

    async def embed(self, texts: list[str], *, scope: str = "") -> list[list[float]]:
        missing = [text for text in dict.fromkeys(texts) if text not in self._vectors]
        if missing:
            vectors = await self._inner.embed(missing, scope=scope)
            self._vectors |= dict(zip(missing, vectors, strict=True))
        return [self._vectors[text] for text in texts]
