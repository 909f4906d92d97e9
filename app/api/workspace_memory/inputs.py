"""The input of putWorkspaceMemory."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from app.model.enums import WorkspaceMemoryType


@strawberry.input(
    description="A value of the client's shared context under its key (1-256 characters): a "
    "key the client has is replaced."
)
class PutWorkspaceMemoryInput:
    key: str
    memory_type: WorkspaceMemoryType
    value: JSON = strawberry.field(description="A JSON object or array.")
    metadata: JSON | None = strawberry.field(default=None, description="A JSON object.")
    priority: int | None = strawberry.field(
        default=None, description="1-10 (default 5): the order within a type in getContext."
    )
