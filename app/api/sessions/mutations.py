"""Session mutations: thin resolvers over app/domain/sessions (repository, deletes,
flush, artifacts); each is one transaction, validated before it writes."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.expiry.policy import lifetimes
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.memory.inputs import policy
from app.api.record_mutations import creates
from app.api.resolve import load_payload, run
from app.api.sessions import inputs as i
from app.api.sessions import outputs as o
from app.api.sessions.learning import Ended, ExtractedFactInput, fact_fields, learned_facts
from app.api.types.memory import MemoryArtifact, MemoryRecord
from app.domain import sessions


@strawberry.type
class SessionMutations:
    start_session = creates(
        sessions.start_session,
        o.StartSessionPayload,
        i.StartSessionInput,
        "Start an open working-memory session; with an externalRef the client "
        "already used, that session is returned (created false), CONFLICT if its agent or "
        "subject differ.",
        policy=lifetimes,
    )

    put_session_entry = creates(
        sessions.put_entry,
        MemoryRecord,
        i.PutSessionEntryInput,
        "Put an entry (a working MemoryRecord) at the end of its timeline. Entries "
        "are ordered by createdAt, strictly increasing within the session even under "
        "concurrent puts. INVALID_TRANSITION once the session is flushed.",
        apart=("session_id",),
        policy=policy,
    )

    @strawberry.mutation(
        description="Delete one live entry of an open session: soft (active false, kept) "
        "unless hard (the node is removed)."
    )
    async def delete_session_entry(
        self, info: Info, id: strawberry.ID, hard: bool = False
    ) -> o.DeletedSessionEntries:
        deleted = await run(info, sessions.delete_entry, entry_id=id, hard=hard)
        return o.deleted_entries(deleted)

    @strawberry.mutation(description="Delete every live entry of one timeline of an open session.")
    async def delete_session_timeline(
        self, info: Info, session_id: strawberry.ID, timeline: str, hard: bool = False
    ) -> o.DeletedSessionEntries:
        deleted = await run(
            info, sessions.delete_timeline, session_id=session_id, timeline=timeline, hard=hard
        )
        return o.deleted_entries(deleted)

    @strawberry.mutation(
        description="End the session with flush: one episodic MemoryRecord summarises it "
        "(`summary` when given, else the built-in extractive summarizer), linked SUMMARIZES to "
        "every live entry and SUMMARIZED_AS from the session, which becomes FLUSHED and "
        "read-only. A second flush is INVALID_TRANSITION (it names the summary). `facts` "
        "(at most 100, from the caller's own model) become semantic memories of the subject, "
        "linked LEARNED from the session, deduplicated against the subject's memory; in the "
        "same transaction."
    )
    async def end_session(
        self,
        info: Info,
        id: strawberry.ID,
        summary: str | None = None,
        facts: list[ExtractedFactInput] | None = None,
    ) -> o.EndSessionPayload:
        flushed = await run(
            info, sessions.end_session, session_id=id, summary=summary, facts=fact_fields(facts)
        )
        learned = await learned_facts(info, flushed.facts)
        return await load_payload(info, o.EndSessionPayload, Ended.of(flushed, learned))

    @strawberry.mutation(
        description="Attach a verbatim transcript (or other record) to a session, open or "
        "flushed: stored in object storage first, then a MemoryArtifact (sha256, size) linked "
        "HAS_ARTIFACT. Read it back with sessionArtifact."
    )
    @idempotent
    async def attach_session_transcript(
        self,
        info: Info,
        input: i.AttachSessionTranscriptInput,
        idempotency_key: IdempotencyKey = None,
    ) -> MemoryArtifact:
        data, content_type = input.payload()
        artifact = await run(
            info,
            sessions.attach_artifact,
            session_id=input.session_id,
            data=data,
            content_type=content_type,
            kind=input.kind,
        )
        return MemoryArtifact.from_row(artifact)
