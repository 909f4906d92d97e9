"""Constraint documents, their versions and knowledge base facts; fields from app/model."""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.scalars import JSON

from app.api.context import Info
from app.api.types.base import NodeType, node_type
from app.domain.constraints import read_content


@node_type(
    "ConstraintDocument",
    "A rule document agents work under (BrandKit, knowledge base, autonomy policies, provider "
    "config, blueprint set): one per kind and client, edited by new versions (seed 000, 0.5).",
)
class ConstraintDocument(NodeType): ...


@node_type(
    "ConstraintVersion",
    "One immutable version of a constraint document: who made it, when, why, and its content.",
)
class ConstraintVersion(NodeType):
    __needs__ = frozenset({"inline_content", "content_uri", "content_sha256"})
    __hidden__ = frozenset({"inline_content"})

    @strawberry.field(
        description="The content (JSON, as the kind's schema says), read from object storage "
        "when large; CONTENT_CORRUPTED if the stored object fails its checksum."
    )
    async def content(self, info: Info) -> JSON:
        row: dict[str, Any] = self._row
        return await read_content(info.context.services.artifacts, info.context.caller(), row)


@node_type(
    "KnowledgeFact",
    "A fact of a knowledge base, in force from version fromVersion until toVersion "
    "(exclusive; null while current); searchable (seed 000, 3.4).",
)
class KnowledgeFact(NodeType): ...
