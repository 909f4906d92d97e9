"""Constraint documents: create one per kind, edit (a new immutable version, optimistically
checked against the version the editor started from). One transaction per write, scoped by
$client_id; large content stored before the version that points at it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from neo4j.exceptions import ConstraintError

from app.artifacts.staged import staged_uploads
from app.artifacts.store import ArtifactStore
from app.domain.constraints import content as stored
from app.domain.constraints.facts import ACTIVE_FACTS, NO_FACTS, WRITE_FACTS, fact_changes
from app.domain.constraints.schemas import check_content
from app.domain.kernel.errors import Conflict, ValidationFailed
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import OwnedNode
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import ConstraintKind, Role

EDITOR_ROLES = (Role.REVIEWER, Role.ADMIN)
MAX_TITLE = 200
MAX_REASON = 2_000
DOCUMENT = OwnedNode("ConstraintDocument", "document", what="constraint document")
EXISTING = """
MATCH (d:ConstraintDocument {client_id: $client_id, kind: $kind}) RETURN d.id AS id
"""
CREATE_DOCUMENT = f"""
CREATE (d:ConstraintDocument)
SET d = $document
CREATE (v:ConstraintVersion)
SET v = $version
CREATE (d)-[:HAS_VERSION]->(v), (d)-[:CURRENT_VERSION]->(v)
WITH d, v
{WRITE_FACTS}
RETURN d {{.*}} AS document
"""
NEW_VERSION = f"""
MATCH (d:ConstraintDocument {{id: $id, client_id: $client_id}})-[old:CURRENT_VERSION]->()
DELETE old
CREATE (v:ConstraintVersion)
SET v = $version
CREATE (d)-[:HAS_VERSION]->(v), (d)-[:CURRENT_VERSION]->(v)
SET d.current_version = v.version, d.current_version_id = v.id, d.updated_at = $now,
    d.title = coalesce($title, d.title)
WITH d, v
{WRITE_FACTS}
RETURN d {{.*}} AS document
"""


def check_edit(principal: Principal, *, reason: str, title: str | None) -> None:
    principal.require(*EDITOR_ROLES)
    if not reason.strip() or len(reason) > MAX_REASON:
        raise ValidationFailed(f"reason must say why in 1-{MAX_REASON} characters", field="reason")
    if title is not None and (not title.strip() or len(title) > MAX_TITLE):
        raise ValidationFailed(f"title must be 1-{MAX_TITLE} characters", field="title")


def _version(
    principal: Principal, *, document_id: str, kind: ConstraintKind, number: int, reason: str
) -> dict[str, Any]:
    now = datetime.now(UTC)
    return {
        "id": new_id(),
        "client_id": principal.client_id,
        "document_id": document_id,
        "kind": kind.value,
        "version": number,
        "author": principal.actor,
        "reason": reason.strip(),
        "created_at": now,
        "updated_at": now,
    }


async def create_document(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    fields: dict[str, Any],
) -> dict[str, Any]:
    """The client's document of `fields["kind"]` with its version 1 (its `title`, `content`
    and the `reason`); CONFLICT if it has one already."""
    kind, title = ConstraintKind(fields["kind"]), fields["title"]
    content, reason = fields["content"], fields["reason"]
    check_edit(principal, reason=reason, title=title)
    checked = check_content(kind, content)
    encoded = stored.encode(checked)
    scope = {"client_id": principal.client_id, "kind": kind.value}
    await _refuse_second(graph, scope, kind)
    document_id = new_id()
    version = _version(principal, document_id=document_id, kind=kind, number=1, reason=reason)
    document = {
        "id": document_id,
        "client_id": principal.client_id,
        "kind": kind.value,
        "title": title.strip(),
        "current_version": 1,
        "current_version_id": version["id"],
        "created_at": version["created_at"],
        "updated_at": version["created_at"],
    }
    facts = _facts(checked, [], version)
    try:
        async with staged_uploads(artifacts, principal, shared=True) as uploads:
            version |= await stored.stored_props(uploads, encoded)
            params = scope | {"document": document, "version": version, "facts": facts.params()}
            params["now"] = version["created_at"]
            rows = await graph.write(CREATE_DOCUMENT, params)
    except ConstraintError:
        await _refuse_second(graph, scope, kind)
        raise
    return dict(plain(rows[0]["document"]))


async def _refuse_second(graph: GraphExecutor, scope: dict[str, Any], kind: ConstraintKind) -> None:
    rows = await graph.read(EXISTING, scope)
    if rows:
        raise Conflict(
            f"this client has a {kind.value} document already ({rows[0]['id']}): edit it "
            "(editConstraintDocument) to make a new version",
            id=rows[0]["id"],
        )


async def edit_document(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    document_id: str,
    content: Any,
    reason: str,
    base_version: int | None = None,
    title: str | None = None,
) -> dict[str, Any]:
    """A new version (numbered after the current one) unless the content and title are the
    current ones; CONFLICT when `base_version` is given and is not the current version."""
    check_edit(principal, reason=reason, title=title)
    scope = DOCUMENT.scope(principal, document_id)

    async def work(tx: Tx) -> dict[str, Any]:
        document = await DOCUMENT.locked(tx, scope)
        check_base(document, base_version)
        kind = ConstraintKind(document["kind"])
        checked = check_content(kind, content)
        encoded = stored.encode(checked)
        current = await tx.run(
            "MATCH (v:ConstraintVersion {id: $vid, client_id: $client_id}) "
            "RETURN v.content_sha256 AS sha256",
            {"vid": document["current_version_id"], "client_id": principal.client_id},
        )
        if current[0]["sha256"] == encoded.sha256 and title in (None, document["title"]):
            return document
        number = document["current_version"] + 1
        version = _version(
            principal, document_id=document_id, kind=kind, number=number, reason=reason
        )
        known = [row["fact"] for row in await tx.run(ACTIVE_FACTS, scope)]
        facts = _facts(checked, known, version)
        async with staged_uploads(artifacts, principal, shared=True) as uploads:
            version |= await stored.stored_props(uploads, encoded)
        params = scope | {"version": version, "facts": facts.params(), "title": title}
        rows = await tx.run(NEW_VERSION, params | {"now": version["created_at"]})
        return dict(plain(rows[0]["document"]))

    return await graph.in_transaction(work)


def check_base(document: dict[str, Any], base_version: int | None) -> None:
    current = document["current_version"]
    if base_version is not None and base_version != current:
        raise Conflict(
            f"constraint document {document['id']} is at version {current}, and this edit was "
            f"made from version {base_version}: read version {current}, apply your change to it "
            "and save again",
            id=document["id"],
            currentVersion=current,
        )


def _facts(checked: dict[str, Any], known: list[dict[str, Any]], version: dict[str, Any]) -> Any:
    if version["kind"] != ConstraintKind.KNOWLEDGE_BASE.value:
        return NO_FACTS
    return fact_changes(
        known,
        checked["facts"],
        client_id=version["client_id"],
        document_id=version["document_id"],
        version=version["version"],
        now=version["created_at"],
    )
