"""Searching working memory and episodic memory (seed 003 searchMemory, searchEpisodicMemory)
through the retrieval layer (app/retrieval/search.py): session entries are MemoryRecords of
kind working filtered by session (and timeline); episodic summaries are MemoryRecords of kind
episodic, optionally of one agent and/or subject. Records are found once the embedding worker
has indexed them (searchStatus.pending counts what is not yet)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.domain.kernel.principal import Principal
from app.domain.memory import audited, check_segment, join_namespace
from app.domain.sessions.reads import get_session
from app.domain.sessions.rules import session_namespace
from app.graph.executor import GraphExecutor
from app.model.enums import MemoryKind
from app.retrieval.embedder import Embedder
from app.retrieval.search import SearchFilters, SearchHit, SearchMode, SearchRequest, search

RECORD_TYPES = ("MemoryRecord",)


@dataclass(frozen=True)
class SearchArgs:
    text: str
    mode: SearchMode = SearchMode.HYBRID
    k: int = 10


async def search_entries(
    graph: GraphExecutor,
    embedder: Embedder,
    *,
    principal: Principal,
    session_id: str,
    timeline: str | None,
    args: SearchArgs,
) -> list[SearchHit]:
    """Live entries of one session (of one timeline), best first. NOT_FOUND for a session that
    is not the caller's, so an id of another client finds nothing rather than an empty list."""
    with audited(principal, "search", target_id=session_id) as audit:
        audit.target_type, audit.detail = "MemorySession", "session entries"
        session = await get_session(graph, principal=principal, session_id=session_id)
        path = [] if timeline is None else [check_segment(timeline, field="timeline")]
        filters = SearchFilters(
            session_id=session["id"],
            kinds=(MemoryKind.WORKING.value,),
            namespace_prefix=session_namespace(session, *path),
        )
        hits = await _search(graph, embedder, principal, args, filters)
        # The prefix also matches longer timeline names (main, main2): keep the exact one.
        return [h for h in hits if timeline is None or h.record.get("timeline") == timeline]


async def search_episodic(
    graph: GraphExecutor,
    embedder: Embedder,
    *,
    principal: Principal,
    agent: str | None,
    subject: str | None,
    args: SearchArgs,
) -> list[SearchHit]:
    """Episodic records (flushed sessions' summaries and any other episodic memory), best
    first, of the agent and/or about the subject when given."""
    with audited(principal, "search") as audit:
        audit.detail = "episodic summaries"
        parts: dict[str, Any] = {"path": []}
        if subject is not None:
            parts["subject"] = check_segment(subject, field="subject")
        if agent is not None:
            parts["agent"] = check_segment(agent, field="agent")
        filters = SearchFilters(
            kinds=(MemoryKind.EPISODIC.value,),
            agent=parts.get("agent"),
            # A trailing '/' keeps subject:al from matching subject:alice.
            namespace_prefix=join_namespace(parts) + "/" if subject is not None else None,
        )
        return await _search(graph, embedder, principal, args, filters)


async def _search(
    graph: GraphExecutor,
    embedder: Embedder,
    principal: Principal,
    args: SearchArgs,
    filters: SearchFilters,
) -> list[SearchHit]:
    request = SearchRequest(
        text=args.text, mode=args.mode, record_types=RECORD_TYPES, k=args.k, filters=filters
    )
    return await search(graph, embedder, principal=principal, request=request)
