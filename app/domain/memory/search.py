"""Searching memory records (semantic, keyword or hybrid) through the retrieval layer, with the
memory filters: those the retrieval layer knows run in its query; the rest (whole-segment
namespace prefix, subject, memory type, max priority, any-of tags, ...) are applied to its hits,
for which it is asked for more candidates than `k`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.domain.kernel.principal import Principal
from app.domain.memory.access_log import audited
from app.domain.memory.content import decode_inline
from app.domain.memory.lists import list_filter
from app.graph.executor import GraphExecutor
from app.retrieval.embedder import Embedder
from app.retrieval.search import SearchFilters, SearchMode, SearchRequest, search

MAX_K = 100
OVERFETCH = 3


@dataclass(frozen=True)
class MemoryHit:
    record: dict[str, Any]
    score: float
    why: list[str]


def _keeps(params: dict[str, Any], record: dict[str, Any]) -> bool:
    prefix, namespace = params["prefix"], record.get("namespace") or ""
    tags = set(record.get("tags") or [])
    checks = [
        prefix is None or namespace == prefix or namespace.startswith(prefix + "/"),
        params["subject"] is None or record.get("subject") == params["subject"],
        params["key"] is None or record.get("key") == params["key"],
        params["timeline"] is None or record.get("timeline") == params["timeline"],
        params["procedure_type"] is None
        or record.get("procedure_type") == params["procedure_type"],
        params["memory_types"] is None or record.get("memory_type") in params["memory_types"],
        params["max_priority"] is None or record.get("priority", 0) <= params["max_priority"],
        params["tags_any"] is None or bool(tags & set(params["tags_any"])),
        params["updated_after"] is None or record["updated_at"] > params["updated_after"],
        params["text"] is None or params["text"] in (record.get("text") or "").lower(),
    ]
    return all(checks)


def _filters(params: dict[str, Any]) -> SearchFilters:
    return SearchFilters(
        created_after=params["created_after"],
        created_before=params["created_before"],
        agent=params["agent"],
        kinds=tuple(params["kinds"]) if params["kinds"] else None,
        tags=tuple(params["tags_all"]) if params["tags_all"] else None,
        namespace_prefix=params["prefix"],
        session_id=params["session_id"],
        min_priority=params["min_priority"],
    )


async def search_memories(
    graph: GraphExecutor,
    embedder: Embedder,
    *,
    principal: Principal,
    text: str,
    mode: SearchMode = SearchMode.HYBRID,
    k: int = 10,
    where: dict[str, Any] | None = None,
) -> list[MemoryHit]:
    """Live memories of the caller's client best matching `text`, best first (at most k)."""
    with audited(principal, "search") as audit:
        params = list_filter(where or {})
        pool = min(MAX_K, max(k, 1) * OVERFETCH)
        request = SearchRequest(
            text=text,
            mode=mode,
            record_types=("MemoryRecord",),
            k=pool if 1 <= k <= MAX_K else k,
            filters=_filters(params),
        )
        hits = await search(graph, embedder, principal=principal, request=request)
        kept = [hit for hit in hits if _keeps(params, hit.record)][:k]
        audit.detail = f"{len(kept)} hits"
        return [MemoryHit(decode_inline(hit.record), hit.score, list(hit.why)) for hit in kept]
