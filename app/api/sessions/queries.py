"""Session reads: entries in order, search of entries and of episodic summaries, rehydration
and transcripts read back."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import strawberry

from app.api.context import Info
from app.api.read.nodes import load_written_at
from app.api.read.records import load_records
from app.api.read.selection import connection_nodes, selected, under
from app.api.resolve import run
from app.api.sessions import outputs as o
from app.api.sessions.inputs import RehydrateMode
from app.api.types.connection import Connection, page_connection
from app.api.types.memory import MemoryRecord
from app.api.types.sessions import MemorySession
from app.domain import sessions
from app.domain.sessions import SearchArgs
from app.retrieval.search import SearchHit, SearchMode


async def _found(
    info: Info,
    search: Callable[..., Awaitable[list[SearchHit]]],
    under_field: str,
    **arguments: Any,
) -> tuple[list[SearchHit], list[MemoryRecord]]:
    """The hits of a search and their records, with what was selected under `under_field`."""
    hits = await run(info, search, **arguments)
    wanted = under(selected(info), under_field)
    return hits, await load_records(info, MemoryRecord, [o.hit_record(h) for h in hits], wanted)


@strawberry.type
class SessionQueries:
    @strawberry.field(
        description="The live entries of a session (of one timeline, or of all), oldest first, "
        "cursor-paginated."
    )
    async def session_entries(
        self,
        info: Info,
        session_id: strawberry.ID,
        timeline: str | None = None,
        first: int = 50,
        after: str | None = None,
    ) -> Connection[MemoryRecord]:
        page = await run(
            info,
            sessions.session_entries,
            session_id=session_id,
            timeline=timeline,
            first=first,
            after=after,
        )
        nodes = await load_records(info, MemoryRecord, page.items, connection_nodes(selected(info)))
        return page_connection(page, nodes)

    @strawberry.field(
        description="Live entries of one session (of one timeline) by meaning and/or words, "
        "best first; only entries the embedding worker has indexed (searchStatus.pending)."
    )
    async def search_session_entries(
        self,
        info: Info,
        session_id: strawberry.ID,
        text: str,
        timeline: str | None = None,
        mode: SearchMode = SearchMode.HYBRID,
        k: int = 10,
    ) -> list[o.SessionEntryHit]:
        hits, entries = await _found(
            info,
            sessions.search_entries,
            "entry",
            session_id=session_id,
            timeline=timeline,
            args=SearchArgs(text=text, mode=mode, k=k),
        )
        return [o.entry_hit(hit, entry) for hit, entry in zip(hits, entries, strict=True)]

    @strawberry.field(
        description="Episodic memories (flushed sessions' summaries among them), best first, "
        "of an agent and/or about a subject."
    )
    async def search_episodic_summaries(
        self,
        info: Info,
        text: str,
        agent: str | None = None,
        subject: str | None = None,
        mode: SearchMode = SearchMode.HYBRID,
        k: int = 10,
    ) -> list[o.EpisodicSummaryHit]:
        hits, found = await _found(
            info,
            sessions.search_episodic,
            "summary",
            agent=agent,
            subject=subject,
            args=SearchArgs(text=text, mode=mode, k=k),
        )
        return [o.episodic_hit(hit, summary) for hit, summary in zip(hits, found, strict=True)]

    @strawberry.field(
        description="Restore a session: its summary only, or (FULL) the summary and its live "
        "entries of every timeline in order, at most `limit` (1-5000)."
    )
    async def rehydrate_session(
        self,
        info: Info,
        id: strawberry.ID,
        mode: RehydrateMode = RehydrateMode.SUMMARY_ONLY,
        limit: int = sessions.MAX_REHYDRATE,
    ) -> o.RehydratedSession:
        found = await run(
            info,
            sessions.rehydrate_session,
            session_id=id,
            full=mode is RehydrateMode.FULL,
            limit=limit,
        )
        session = await load_written_at(info, MemorySession, found.session, "session")
        summary = None
        if found.summary is not None:
            summary = await load_written_at(info, MemoryRecord, found.summary, "summary")
        fields = selected(info)
        wanted = [*under(fields, "entries"), *under(fields, "timelines", "entries")]
        entries = await load_records(info, MemoryRecord, found.entries, wanted)
        return o.rehydrated(found, mode, session, summary, entries)

    @strawberry.field(description="A session's transcript (or other artifact) with its bytes.")
    async def session_artifact(self, info: Info, id: strawberry.ID) -> o.SessionArtifactContent:
        found = await run(info, sessions.read_artifact, artifact_id=id)
        return o.artifact_content(found)
