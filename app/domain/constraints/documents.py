"""The client's constraint documents by kind, as the CLI exports, imports and lists them: one
kind's document with one of its versions (the current one unless a number is named)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.domain.constraints.reads import check_version_numbers
from app.domain.kernel.errors import NotFound
from app.domain.kernel.principal import Principal
from app.graph.executor import GraphExecutor
from app.model.enums import ConstraintKind

DOCUMENT_VERSION = """
MATCH (d:ConstraintDocument {client_id: $client_id, kind: $kind})
OPTIONAL MATCH (d)-[:HAS_VERSION]->(v:ConstraintVersion {client_id: $client_id})
WHERE v.version = coalesce($version, d.current_version)
RETURN d {.*} AS document, v {.*} AS version
"""
DOCUMENTS = """
MATCH (d:ConstraintDocument {client_id: $client_id})
RETURN d {.*} AS document ORDER BY d.kind
"""


@dataclass(frozen=True)
class DocumentVersion:
    document: dict[str, Any]
    version: dict[str, Any]


async def document_of_kind(
    graph: GraphExecutor,
    *,
    principal: Principal,
    kind: ConstraintKind,
    version: int | None = None,
) -> DocumentVersion | None:
    """The client's document of `kind` with its version `version` (default: the current one);
    None when the client has no document of that kind, NOT_FOUND when it lacks that version."""
    if version is not None:
        check_version_numbers(version=version)
    params = {"client_id": principal.client_id, "kind": kind.value, "version": version}
    rows = await graph.read_plain(DOCUMENT_VERSION, params)
    if not rows:
        return None
    document, found = rows[0]["document"], rows[0]["version"]
    if found is None:
        raise NotFound(
            f"the {kind.value} document {document['id']} has no version {version}; its current "
            f"version is {document['current_version']}",
            id=document["id"],
        )
    return DocumentVersion(dict(document), dict(found))


async def list_documents(graph: GraphExecutor, *, principal: Principal) -> list[dict[str, Any]]:
    """The client's documents (at most one per kind), by kind."""
    rows = await graph.read_plain(DOCUMENTS, {"client_id": principal.client_id})
    return [dict(row["document"]) for row in rows]
