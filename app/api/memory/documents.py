"""Semantic documents (by object id) and procedures (per agent, by name, versions kept): thin
operations over memory records of kind semantic and procedural (app/domain/memory/documents)."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from app.api.context import Info
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.memory import outputs as o
from app.api.memory.inputs import ProcedureInput, policy
from app.api.read.records import load_record
from app.api.read.selection import selected
from app.api.resolve import run
from app.api.types.memory import MemoryRecord
from app.domain import memory


@strawberry.type
class DocumentMutations:
    @strawberry.mutation(
        description="Store or replace (as a new version) a semantic document: a JSON document "
        "keyed by your object id, at path `semantic` under an optional subject and agent. Its "
        "text (for search) defaults to the document's string values."
    )
    @idempotent
    async def put_semantic_document(
        self,
        info: Info,
        object_id: str,
        document: JSON,
        subject: str | None = None,
        agent: str | None = None,
        text: str | None = None,
        tags: list[str] | None = None,
        priority: int | None = None,
        expires_at: datetime | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> MemoryRecord:
        record = await run(
            info,
            memory.put_semantic_document,
            object_id=object_id,
            document=document,
            subject=subject,
            agent=agent,
            extra={"text": text, "tags": tags, "priority": priority, "expires_at": expires_at},
            policy=policy(info),
        )
        return await load_record(info, MemoryRecord, record, selected(info))

    @strawberry.mutation(description="Forget a semantic document (soft unless hard).")
    async def delete_semantic_document(
        self,
        info: Info,
        object_id: str,
        subject: str | None = None,
        agent: str | None = None,
        hard: bool = False,
    ) -> o.ForgetResult:
        namespace = memory.semantic_namespace(subject, agent)
        row = await run(info, memory.forget, namespace=namespace, key=object_id, hard=hard)
        return o.forget_result(row)

    @strawberry.mutation(
        description="Store or replace an agent's procedure (template, response pattern or "
        "workflow); the previous version is kept (procedureHistory)."
    )
    @idempotent
    async def put_procedure(
        self, info: Info, input: ProcedureInput, idempotency_key: IdempotencyKey = None
    ) -> MemoryRecord:
        record = await run(
            info,
            memory.put_procedure,
            agent=input.agent,
            name=input.name,
            procedure_type=input.procedure_type,
            extra={
                "text": input.text,
                "content": input.content,
                "tags": input.tags,
                "priority": input.priority,
                "expected_version": input.expected_version,
            },
            policy=policy(info),
        )
        return await load_record(info, MemoryRecord, record, selected(info))

    @strawberry.mutation(description="Forget an agent's procedure (soft unless hard).")
    async def delete_procedure(
        self, info: Info, agent: str, name: str, hard: bool = False
    ) -> o.ForgetResult:
        namespace = memory.procedure_namespace(agent)
        row = await run(info, memory.forget, namespace=namespace, key=name, hard=hard)
        return o.forget_result(row)
