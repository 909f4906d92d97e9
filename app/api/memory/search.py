"""Searching memories, semantic documents and procedures (app/retrieval through
app/domain/memory/search)."""

from __future__ import annotations

from typing import Any

import strawberry

from app.api.context import Info
from app.api.memory import outputs as o
from app.api.memory.inputs import MemoryWhere
from app.api.read.records import load_records
from app.api.read.selection import selected, under
from app.api.resolve import run
from app.api.search import inputs as _search_inputs  # noqa: F401 - registers SearchMode
from app.api.types.memory import MemoryRecord
from app.domain import memory
from app.domain.memory import search_memories
from app.model.enums import MemoryKind
from app.retrieval.search import SearchMode


async def _hits(
    info: Info, text: str, mode: SearchMode, k: int, where: dict[str, Any]
) -> list[o.MemorySearchHit]:
    hits = await run(info, search_memories, text=text, mode=mode, k=k, where=where)
    # The hits' records with what the caller selected under `record` (versions, artifacts,
    # ...): one more query for all of them, only when relationships are selected.
    selections = under(selected(info), "record")
    records = await load_records(info, MemoryRecord, [hit.record for hit in hits], selections)
    return [
        o.MemorySearchHit(record=record, score=hit.score, why=hit.why)
        for record, hit in zip(records, hits, strict=True)
    ]


@strawberry.type
class MemorySearchQueries:
    @strawberry.field(
        description="Live memories best matching the text: VECTOR (semantic), KEYWORD (BM25) or "
        "HYBRID, with the memory filters. New writes are searchable once indexed "
        "(searchStatus { pending } reaches 0)."
    )
    async def search_memories(
        self,
        info: Info,
        text: str,
        mode: SearchMode = SearchMode.HYBRID,
        k: int = 10,
        where: MemoryWhere | None = None,
    ) -> list[o.MemorySearchHit]:
        return await _hits(info, text, mode, k, where.filters() if where else {})

    @strawberry.field(description="Semantic documents best matching the text.")
    async def search_semantic_documents(
        self,
        info: Info,
        text: str,
        mode: SearchMode = SearchMode.HYBRID,
        k: int = 10,
        subject: str | None = None,
        agent: str | None = None,
    ) -> list[o.MemorySearchHit]:
        where = {"kinds": [MemoryKind.SEMANTIC.value], "subject": subject, "agent": agent}
        return await _hits(info, text, mode, k, where)

    @strawberry.field(description="An agent's procedures best matching the text.")
    async def search_procedures(
        self,
        info: Info,
        agent: str,
        text: str,
        mode: SearchMode = SearchMode.HYBRID,
        k: int = 10,
    ) -> list[o.MemorySearchHit]:
        where = {
            "kinds": [MemoryKind.PROCEDURAL.value],
            "namespace_prefix": memory.procedure_prefix(agent),
        }
        return await _hits(info, text, mode, k, where)
