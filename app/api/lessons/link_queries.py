"""MemoryLink reads: a record's links, and its k-hop neighbourhood in one Cypher query."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.lessons.link_outputs import Neighbourhood, RecordLink, neighbourhood, record_link
from app.api.resolve import run
from app.domain import lessons
from app.domain.kernel.records import missing
from app.domain.lessons import LinkDirection
from app.graph.values import plain
from app.model.enums import MemoryRelation


@strawberry.type
class LinkQueries:
    @strawberry.field(description="The MemoryLinks of a record (newest first), in one query.")
    async def record_links(
        self,
        info: Info,
        id: strawberry.ID,
        direction: LinkDirection = LinkDirection.BOTH,
        relations: list[MemoryRelation] | None = None,
    ) -> list[RecordLink]:
        links = await run(
            info,
            lessons.record_links,
            record_id=id,
            direction=direction,
            relations=relations,
        )
        return [record_link(link) for link in links]

    @strawberry.field(
        description="The records within `hops` (1-4) MemoryLinks of a record, either direction, "
        "through the given relations (all by default); `labels` filters the records returned. "
        "One Cypher query (cypher/queries/neighbourhood.cypher)."
    )
    async def neighbourhood(
        self,
        info: Info,
        id: strawberry.ID,
        hops: int = 1,
        relations: list[MemoryRelation] | None = None,
        labels: list[str] | None = None,
        first: int = 100,
    ) -> Neighbourhood:
        params = lessons.neighbourhood_params(
            info.context.caller(),
            record_id=id,
            hops=hops,
            relations=relations,
            labels=labels,
            first=first,
        )
        rows = await info.context.graph.read(lessons.record_query("neighbourhood"), params)
        if not rows:
            raise missing("record", params["id"])
        return neighbourhood(plain(rows[0]))
