"""MemoryLink mutations: thin resolvers over app/domain/lessons/links."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.idempotent import IdempotencyKey, create_once, idempotent
from app.api.lessons.link_outputs import MemoryLink, memory_link
from app.domain import lessons
from app.model.enums import MemoryRelation


@strawberry.type
class LinkMutations:
    @strawberry.mutation(
        description="Link two records of the caller's client with a typed MemoryLink "
        "(from -[RELATION]-> to). NOT_FOUND for an id of another client; CONFLICT if the same "
        "link exists."
    )
    @idempotent
    async def link_records(
        self,
        info: Info,
        from_id: strawberry.ID,
        to_id: strawberry.ID,
        relation: MemoryRelation,
        note: str | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> MemoryLink:
        link = await create_once(
            info,
            lambda graph: lessons.link_records(
                graph,
                principal=info.context.caller(),
                from_id=from_id,
                to_id=to_id,
                relation=relation,
                note=note,
            ),
        )
        return memory_link(link)

    @strawberry.mutation(description="Remove a MemoryLink by its linkId; returns it as it was.")
    async def unlink_records(self, info: Info, link_id: strawberry.ID) -> MemoryLink:
        link = await lessons.unlink_records(
            info.context.graph, principal=info.context.caller(), link_id=link_id
        )
        return memory_link(link)
