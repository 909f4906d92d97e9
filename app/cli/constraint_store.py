"""What `agentmem constraints` runs against the store, as an admin of the named client (its
author `admin:cli:<os user>`): export a document's version, import a file as a new version under
the API's optimistic check, list the documents."""

from __future__ import annotations

import getpass
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from app.artifacts.store import ArtifactStore, open_store
from app.cli.constraint_files import ConstraintFile
from app.domain import constraints
from app.domain.constraints import DocumentVersion, document_of_kind
from app.domain.kernel.errors import Conflict, NotFound, ValidationFailed
from app.domain.kernel.principal import Principal
from app.domain.keys import client_id_of
from app.graph.executor import GraphExecutor
from app.model.enums import ConstraintKind, Role
from app.runtime import connected
from app.settings import Settings


@dataclass(frozen=True)
class Acting:
    graph: GraphExecutor
    artifacts: ArtifactStore
    principal: Principal


@asynccontextmanager
async def acting_for(settings: Settings, client: str) -> AsyncIterator[Acting]:
    """The graph, object storage and an admin principal of the named client (which must
    exist: a typo never creates one)."""
    async with connected(settings) as graph:
        client_id = await client_id_of(graph, client)
        principal = Principal(client_id, Role.ADMIN, key_id=f"cli:{getpass.getuser()}")
        artifacts = open_store(settings)
        try:
            yield Acting(graph, artifacts, principal)
        finally:
            artifacts.close()


async def export_document(
    settings: Settings, *, client: str, kind: ConstraintKind, version: int | None
) -> tuple[ConstraintFile, int]:
    """The file of the client's `kind` document at `version` (default: the current one), and
    the current version's number."""
    async with acting_for(settings, client) as acting:
        found = await document_of_kind(
            acting.graph, principal=acting.principal, kind=kind, version=version
        )
        if found is None:
            raise NotFound(
                f"client {client} has no {kind.value} document yet; to create one, import "
                "a file holding kind, title and content (no document_id)"
            )
        content = await constraints.read_content(acting.artifacts, acting.principal, found.version)
    document, number = found.document, found.version["version"]
    title = found.version["title"]  # the document's title as of that version
    exported = ConstraintFile(kind, content, document["id"], title, number)
    return exported, int(document["current_version"])


@dataclass(frozen=True)
class Imported:
    document: dict[str, Any]
    saved: bool  # False: the document's current version holds the file's content already


async def import_document(
    settings: Settings, *, client: str, given: ConstraintFile, reason: str
) -> Imported:
    """A new version of the client's document of the file's kind, from the file's version (or
    the document itself when the file names none and the client has none of that kind)."""
    async with acting_for(settings, client) as acting:
        found = await document_of_kind(acting.graph, principal=acting.principal, kind=given.kind)
        if given.document_id is None:
            made = await _create(acting, client=client, given=given, reason=reason, found=found)
            return Imported(made, saved=True)
        # Only the named client's document of the file's kind: a file exported from another
        # client (or of another kind) reaches nothing.
        if found is None or found.document["id"] != given.document_id:
            raise NotFound(
                f"client {client} has no {given.kind.value} document {given.document_id}",
                id=given.document_id,
            )
        document = await constraints.edit_document(
            acting.graph,
            acting.artifacts,
            principal=acting.principal,
            document_id=given.document_id,
            content=given.content,
            reason=reason,
            base_version=given.version,
            title=given.title,
        )
        return Imported(document, saved=document["current_version"] != found.version["version"])


async def _create(
    acting: Acting,
    *,
    client: str,
    given: ConstraintFile,
    reason: str,
    found: DocumentVersion | None,
) -> dict[str, Any]:
    kind = given.kind.value
    if found is not None:
        raise Conflict(
            f"client {client} has a {kind} document already ({found.document['id']}): export "
            "it, edit that file and import it",
            id=found.document["id"],
        )
    if given.title is None:
        raise ValidationFailed("a new document needs a title", field="title")
    fields = {"kind": kind, "title": given.title, "content": given.content, "reason": reason}
    return await constraints.create_document(
        acting.graph, acting.artifacts, principal=acting.principal, fields=fields
    )


async def list_documents(settings: Settings, *, client: str) -> list[dict[str, Any]]:
    async with acting_for(settings, client) as acting:
        return await constraints.list_documents(acting.graph, principal=acting.principal)
