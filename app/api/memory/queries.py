"""Memory record reads: recall, list, history (expired records are never returned)."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.memory import outputs as o
from app.api.memory.inputs import MemoryWhere, NamespaceInput
from app.api.read.calls import planned
from app.api.read.records import load_record, load_records
from app.api.read.selection import connection_nodes, selected, selects
from app.api.resolve import run
from app.api.types.connection import Connection, connection
from app.api.types.memory import MemoryRecord, MemoryVersion
from app.domain import memory


@strawberry.type
class MemoryQueries:
    @strawberry.field(
        description="One live memory by id, or by namespace and key (its content read back from "
        "object storage if it lives there). NOT_FOUND when missing, forgotten, expired or "
        "another client's."
    )
    @planned
    async def recall_memory(
        self,
        info: Info,
        id: strawberry.ID | None = None,
        namespace: NamespaceInput | None = None,
        key: str | None = None,
    ) -> MemoryRecord:
        fields = selected(info)
        record = await run(
            info,
            memory.recall,
            record_id=id,
            namespace=namespace.parts() if namespace else None,
            key=key,
            hydrated=selects(fields, "content"),
        )
        return await load_record(info, MemoryRecord, record, fields)

    @strawberry.field(
        description="The caller's memories, newest first, filtered and cursor-paginated. "
        "Expired ones never appear; forgotten ones only with includeInactive (admins)."
    )
    async def memories(
        self,
        info: Info,
        where: MemoryWhere | None = None,
        first: int = 20,
        after: str | None = None,
        include_inactive: bool = False,
    ) -> Connection[MemoryRecord]:
        selections = connection_nodes(selected(info))
        records, total = await run(
            info,
            memory.list_records,
            artifacts=info.context.services.artifacts if selects(selections, "content") else None,
            where=where.filters() if where else {},
            first=first,
            after=after,
            include_inactive=include_inactive,
        )
        nodes = await load_records(info, MemoryRecord, records, selections)
        return connection(nodes, records, total=total, first=first)

    @strawberry.field(
        description="A record and its superseded versions, newest first. A forgotten record's "
        "history needs includeInactive (admins)."
    )
    async def memory_history(
        self,
        info: Info,
        id: strawberry.ID | None = None,
        namespace: NamespaceInput | None = None,
        key: str | None = None,
        include_inactive: bool = False,
    ) -> o.MemoryHistory:
        found = await run(
            info,
            memory.history,
            record_id=id,
            namespace=namespace.parts() if namespace else None,
            key=key,
            include_inactive=include_inactive,
        )
        return o.MemoryHistory(
            record=MemoryRecord.from_row(found["record"]),
            versions=[MemoryVersion.from_row(v) for v in found["versions"]],
        )
