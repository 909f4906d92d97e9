"""Inputs of the memory mutations and queries, and the memory policy in force."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

import strawberry
from strawberry.scalars import JSON

from app.api.context import Info
from app.domain.memory import MemoryPolicy
from app.model.enums import AccessOutcome, MemoryKind, MemoryType, ProcedureType


@strawberry.input(
    description="Where a memory lives; every part optional. Segments: 1-128 letters, digits, "
    ". _ @ + = - ; path: at most 8 segments."
)
class NamespaceInput:
    subject: str | None = strawberry.field(default=None, description="Who it is about.")
    agent: str | None = strawberry.field(default=None, description="The agent or persona.")
    session_id: str | None = None
    path: list[str] | None = None

    def parts(self) -> dict[str, Any]:
        path = None if self.path is None else list(self.path)
        return {
            "subject": self.subject,
            "agent": self.agent,
            "session_id": self.session_id,
            "path": path,
        }


@strawberry.input(
    description="A memory. With a key, an existing record at (namespace, key) is replaced as a "
    "new version (its previous state kept). Give text or content (or both)."
)
class RememberInput:
    kind: MemoryKind | None = strawberry.field(
        default=None, description="Required unless memoryType names it."
    )
    memory_type: MemoryType | None = strawberry.field(
        default=None,
        description="Seed 004's memory type; it sets the kind (README: Memory types), so kind "
        "may be left out, and a different kind is VALIDATION.",
    )
    namespace: NamespaceInput | None = None
    key: str | None = strawberry.field(default=None, description="1-256 characters.")
    text: str | None = strawberry.field(default=None, description="At most 20000 characters.")
    content: JSON | None = strawberry.field(
        default=None, description="A JSON object or array; large content goes to object storage."
    )
    tags: list[str] | None = strawberry.field(
        default=None, description="At most 32; lower-cased, spaces become '-'."
    )
    priority: int | None = strawberry.field(default=None, description="1-10 (default 5).")
    source_agent: str | None = strawberry.field(
        default=None, description="Defaults to the API key's agent name."
    )
    expires_at: datetime | None = strawberry.field(default=None, description="In the future.")
    ttl_seconds: float | None = strawberry.field(
        default=None, description="Instead of expiresAt: expire this many seconds from now."
    )
    timeline: str | None = None
    procedure_type: ProcedureType | None = strawberry.field(
        default=None, description="Required for kind PROCEDURAL, refused for other kinds."
    )
    expected_version: int | None = strawberry.field(
        default=None,
        description="Optimistic check: CONFLICT unless the record is at this version "
        "(0: the key must be new).",
    )

    def fields(self) -> dict[str, Any]:
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        namespace = values.pop("namespace")
        return values | (namespace.parts() if namespace else {})


@strawberry.input(description="Memory filters; each is optional and all must hold.")
class MemoryWhere:
    namespace_prefix: str | None = strawberry.field(
        default=None,
        description="A canonical namespace or its leading whole segments, e.g. 'subject:alice'.",
    )
    subject: str | None = None
    agent: str | None = None
    session_id: str | None = None
    key: str | None = None
    timeline: str | None = None
    kinds: list[MemoryKind] | None = None
    memory_types: list[MemoryType] | None = None
    procedure_type: ProcedureType | None = None
    tags_any: list[str] | None = strawberry.field(default=None, description="Any of these tags.")
    tags_all: list[str] | None = strawberry.field(default=None, description="All of these tags.")
    min_priority: int | None = None
    max_priority: int | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    updated_after: datetime | None = None
    text_contains: str | None = None

    def filters(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


@strawberry.input(description="Access log filters; each is optional.")
class AccessLogWhere:
    operations: list[str] | None = None
    principal: str | None = None
    target_id: strawberry.ID | None = None
    outcome: AccessOutcome | None = None
    session_id: str | None = None
    request_id: str | None = None
    after: datetime | None = None
    before: datetime | None = None


@strawberry.input(description="A procedure of an agent or persona (kept with its versions).")
class ProcedureInput:
    agent: str
    name: str = strawberry.field(description="Its key under the agent: 1-256 characters.")
    procedure_type: ProcedureType
    text: str | None = strawberry.field(default=None, description="The template or prompt.")
    content: JSON | None = strawberry.field(default=None, description="E.g. a workflow's steps.")
    tags: list[str] | None = None
    priority: int | None = None
    expected_version: int | None = None


def policy(info: Info) -> MemoryPolicy:
    return MemoryPolicy.of(info.context.services.settings)
