"""Session reads: entries in order, search of entries and of episodic summaries, rehydration
and transcripts read back."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.memory.nodes import as_nodes, connection_nodes, root, under
from app.api.read.nodes import load_written_at
from app.api.sessions import outputs as o
from app.api.sessions.inputs import RehydrateMode
from app.api.types.connection import Connection, Edge, PageInfo
from app.api.types.memory import MemoryRecord
from app.domain import sessions
from app.domain.sessions import SearchArgs
from app.retrieval.search import SearchMode

RECORD = "MemoryRecord"


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
        page = await sessions.session_entries(
            info.context.graph,
            info.context.services.artifacts,
            principal=info.context.caller(),
            session_id=session_id,
            timeline=timeline,
            first=first,
            after=after,
        )
        nodes = await as_nodes(info, RECORD, page.items, connection_nodes(info))
        edges = [Edge(cursor=c, node=n) for c, n in zip(page.cursors, nodes, strict=True)]
        return Connection(
            edges=edges,
            page_info=PageInfo(
                has_next_page=page.has_next_page,
                end_cursor=page.cursors[-1] if page.cursors else None,
            ),
            total_count=page.total_count,
        )

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
        services = info.context.services
        hits = await sessions.search_entries(
            services.graph,
            services.embedder,
            principal=info.context.caller(),
            session_id=session_id,
            timeline=timeline,
            args=SearchArgs(text=text, mode=mode, k=k),
        )
        selected = under(root(info).selections, "entry")
        entries = await as_nodes(info, RECORD, [o.hit_record(hit) for hit in hits], selected)
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
        services = info.context.services
        hits = await sessions.search_episodic(
            services.graph,
            services.embedder,
            principal=info.context.caller(),
            agent=agent,
            subject=subject,
            args=SearchArgs(text=text, mode=mode, k=k),
        )
        selected = under(root(info).selections, "summary")
        found = await as_nodes(info, RECORD, [o.hit_record(hit) for hit in hits], selected)
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
        found = await sessions.rehydrate_session(
            info.context.graph,
            info.context.services.artifacts,
            principal=info.context.caller(),
            session_id=id,
            full=mode is RehydrateMode.FULL,
            limit=limit,
        )
        session = await load_written_at(info, "MemorySession", found.session, "session")
        summary = None
        if found.summary is not None:
            summary = await load_written_at(info, RECORD, found.summary, "summary")
        selections = root(info).selections
        selected = [*under(selections, "entries"), *under(selections, "timelines", "entries")]
        entries = await as_nodes(info, RECORD, found.entries, selected)
        return o.rehydrated(found, mode, session, summary, entries)

    @strawberry.field(description="A session's transcript (or other artifact) with its bytes.")
    async def session_artifact(self, info: Info, id: strawberry.ID) -> o.SessionArtifactContent:
        found = await sessions.read_artifact(
            info.context.graph,
            info.context.services.artifacts,
            principal=info.context.caller(),
            artifact_id=id,
        )
        return o.artifact_content(found)
