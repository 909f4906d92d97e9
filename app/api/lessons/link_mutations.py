"""MemoryLink mutations: thin resolvers over app/domain/lessons/links."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from app.api.context import Info
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.lessons.link_outputs import MemoryLink, memory_link
from app.api.resolve import run
from app.domain import lessons
from app.model.enums import MemoryRelation


@strawberry.type
class LinkMutations:
    @strawberry.mutation(
        description="Link two records of the caller's client with a typed MemoryLink "
        "(from -[RELATION]-> to), with an optional JSON object of metadata. NOT_FOUND for an id "
        "of another client; CONFLICT if the same link (from, to, relation) exists."
    )
    @idempotent
    async def link_records(
        self,
        info: Info,
        from_id: strawberry.ID,
        to_id: strawberry.ID,
        relation: MemoryRelation,
        note: str | None = None,
        metadata: JSON | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> MemoryLink:
        link = await run(
            info,
            lessons.link_records,
            from_id=from_id,
            to_id=to_id,
            relation=relation,
            note=note,
            metadata=metadata,
        )
        return memory_link(link)

    @strawberry.mutation(description="Remove a MemoryLink by its linkId; returns it as it was.")
    async def unlink_records(self, info: Info, link_id: strawberry.ID) -> MemoryLink:
        return memory_link(await run(info, lessons.unlink_records, link_id=link_id))
