"""archiveSession and unarchiveSession (seed 004): thin resolvers over
app/domain/sessions/archive.py and unarchive.py."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.resolve import write_payload
from app.api.types.memory import MemoryArtifact
from app.api.types.sessions import MemorySession
from app.domain import sessions


@strawberry.type
class ArchiveSessionPayload:
    session: MemorySession
    artifact: MemoryArtifact = strawberry.field(
        description="The archive (kind archive): the entries' text and inline content as JSON."
    )
    entries_moved: int = strawberry.field(
        description="Entries whose text or inline content moved to object storage."
    )


@strawberry.type
class UnarchiveSessionPayload:
    session: MemorySession
    entries_restored: int = strawberry.field(description="Entries given their content back.")
    objects_deleted: int = strawberry.field(
        description="The archive object, once nothing pointed at it (1), else 0."
    )


@strawberry.type
class ArchiveMutations:
    @strawberry.mutation(
        description="Archive a FLUSHED session: its entries' text and inline content go to one "
        "object in storage (stored before the graph changes), the entries keep everything else, "
        "and the session becomes ARCHIVED; its summary stays, so search still finds it. "
        "INVALID_TRANSITION for an open or archived session."
    )
    async def archive_session(self, info: Info, id: strawberry.ID) -> ArchiveSessionPayload:
        return await write_payload(
            info, sessions.archive_session, ArchiveSessionPayload, session_id=id
        )

    @strawberry.mutation(
        description="Bring an ARCHIVED session's entries back from its archive (checked by "
        "sha256: CONTENT_CORRUPTED otherwise); the session is FLUSHED again and the archive "
        "deleted."
    )
    async def unarchive_session(self, info: Info, id: strawberry.ID) -> UnarchiveSessionPayload:
        return await write_payload(
            info, sessions.unarchive_session, UnarchiveSessionPayload, session_id=id
        )
