"""eraseSubject: a thin resolver over app/domain/erasure."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.resolve import run
from app.domain import erasure


@strawberry.type(description="What eraseSubject removed (all 0 when nothing was about it).")
class SubjectErasure:
    subject: str = strawberry.field(description="The externalRef erased.")
    subjects: int = strawberry.field(description="Its MemorySubject (profile): 0 or 1.")
    records: int = strawberry.field(description="Memory records, session entries included.")
    versions: int = strawberry.field(description="Superseded versions of those records.")
    artifacts: int = strawberry.field(description="Attachments of the records and sessions.")
    sessions: int = strawberry.field(description="Working-memory sessions about it.")
    agent_states: int = strawberry.field(description="Agents' states scoped to those sessions.")
    objects: int = strawberry.field(description="Objects removed from object storage.")
    access_log_entries: int = strawberry.field(
        description="Access log entries about what was erased, kept without target and data."
    )


@strawberry.type
class ErasureMutations:
    @strawberry.mutation(
        description="Erase everything the client holds about a subject (the right to be "
        "forgotten): its profile and relationship context, every memory record and session "
        "about it with their versions, artifacts and stored objects, in one transaction "
        "(reviewers and admins). Repeatable: an unknown subject erases nothing."
    )
    async def erase_subject(self, info: Info, subject: str) -> SubjectErasure:
        erased = await run(info, erasure.erase_subject, subject=subject)
        return SubjectErasure(**erased.__dict__)
