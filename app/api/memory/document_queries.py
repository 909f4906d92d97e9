"""Reads of semantic documents and procedures."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.memory import outputs as o
from app.api.read.records import load_record, load_records
from app.api.read.selection import connection_nodes, selected, selects
from app.api.resolve import run
from app.api.types.connection import Connection, connection
from app.api.types.memory import MemoryRecord, MemoryVersion
from app.domain import memory
from app.model.enums import MemoryKind, ProcedureType


@strawberry.type
class DocumentQueries:
    @strawberry.field(description="A semantic document by object id (its document = content).")
    async def semantic_document(
        self, info: Info, object_id: str, subject: str | None = None, agent: str | None = None
    ) -> MemoryRecord:
        fields = selected(info)
        record = await run(
            info,
            memory.recall,
            namespace=memory.semantic_namespace(subject, agent),
            key=object_id,
            kind=MemoryKind.SEMANTIC.value,
            hydrated=selects(fields, "content"),
        )
        return await load_record(info, MemoryRecord, record, fields)

    @strawberry.field(description="An agent's procedure by name.")
    async def procedure(self, info: Info, agent: str, name: str) -> MemoryRecord:
        fields = selected(info)
        record = await run(
            info,
            memory.recall,
            namespace=memory.procedure_namespace(agent),
            key=name,
            kind=MemoryKind.PROCEDURAL.value,
            hydrated=selects(fields, "content"),
        )
        return await load_record(info, MemoryRecord, record, fields)

    @strawberry.field(description="An agent's procedures, newest first, optionally of one type.")
    async def procedures(
        self,
        info: Info,
        agent: str,
        procedure_type: ProcedureType | None = None,
        first: int = 20,
        after: str | None = None,
    ) -> Connection[MemoryRecord]:
        selections = connection_nodes(selected(info))
        where = {
            "namespace_prefix": memory.procedure_prefix(agent),
            "kinds": [MemoryKind.PROCEDURAL.value],
            "procedure_type": procedure_type,
        }
        records, total = await run(
            info,
            memory.list_records,
            artifacts=info.context.services.artifacts if selects(selections, "content") else None,
            where=where,
            first=first,
            after=after,
        )
        nodes = await load_records(info, MemoryRecord, records, selections)
        return connection(nodes, records, total=total, first=first)

    @strawberry.field(description="A procedure and its earlier versions, newest first.")
    async def procedure_history(self, info: Info, agent: str, name: str) -> o.MemoryHistory:
        found = await run(
            info,
            memory.history,
            namespace=memory.procedure_namespace(agent),
            key=name,
        )
        return o.MemoryHistory(
            record=MemoryRecord.from_row(found["record"]),
            versions=[MemoryVersion.from_row(v) for v in found["versions"]],
        )
