"""Memory record mutations: thin resolvers over app/domain."""

from __future__ import annotations

import base64
import binascii

import strawberry

from app.api.context import Info
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.memory import outputs as o
from app.api.memory.inputs import NamespaceInput, RememberInput, policy
from app.api.read.calls import planned
from app.api.read.records import load_record
from app.api.read.selection import selected
from app.api.resolve import run
from app.api.types.memory import MemoryArtifact, MemoryRecord
from app.domain import memory
from app.domain.kernel.errors import ValidationFailed
from app.domain.memory import attach_artifact


def decoded_base64(value: str) -> bytes:
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ValidationFailed(
            "contentBase64 is not valid base64", field="contentBase64"
        ) from error


@strawberry.type
class MemoryMutations:
    @strawberry.mutation(
        description="Store a memory: create it, or with a key replace the record at "
        "(namespace, key) as its next version (the previous state kept; a forgotten or expired "
        "key is revived). Content above memoryInlineContentMax bytes goes to object storage."
    )
    @planned
    @idempotent
    async def remember(
        self, info: Info, input: RememberInput, idempotency_key: IdempotencyKey = None
    ) -> MemoryRecord:
        record = await run(info, memory.remember, fields=input.fields(), policy=policy(info))
        return await load_record(info, MemoryRecord, record, selected(info))

    @strawberry.mutation(
        description="Forget a record by id, or by namespace and key. Soft by default (inactive, "
        "kept; admins still list it); hard deletes it with its versions, artifacts and stored "
        "objects. Both are in the access log."
    )
    async def forget_memory(
        self,
        info: Info,
        id: strawberry.ID | None = None,
        namespace: NamespaceInput | None = None,
        key: str | None = None,
        hard: bool = False,
    ) -> o.ForgetResult:
        row = await run(
            info,
            memory.forget,
            record_id=id,
            namespace=namespace.parts() if namespace else None,
            key=key,
            hard=hard,
        )
        return o.forget_result(row)

    @strawberry.mutation(
        description="Attach a verbatim record (a transcript, a file) to a memory record: the "
        "bytes as base64, or the URI of an object already under the client's storage prefix."
    )
    @idempotent
    async def attach_memory_artifact(
        self,
        info: Info,
        record_id: strawberry.ID,
        kind: str,
        content_base64: str | None = None,
        uri: str | None = None,
        content_type: str = "text/plain; charset=utf-8",
        idempotency_key: IdempotencyKey = None,
    ) -> MemoryArtifact:
        artifact = await run(
            info,
            attach_artifact,
            owner_id=record_id,
            kind=kind,
            data=None if content_base64 is None else decoded_base64(content_base64),
            uri=uri,
            content_type=content_type,
        )
        return MemoryArtifact.from_row(artifact)
