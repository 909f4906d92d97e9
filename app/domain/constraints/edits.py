"""A new version of a document: numbered after the current one, under the document's write
lock, optimistically checked against the version the editor started from. Versions are never
changed afterwards; the document points at its newest (CURRENT_VERSION, current_version)."""

from __future__ import annotations

from typing import Any

from app.artifacts.staged import staged_uploads
from app.artifacts.store import ArtifactStore
from app.domain.constraints import content as stored
from app.domain.constraints.facts import ACTIVE_FACTS, WRITE_FACTS
from app.domain.constraints.repository import (
    check_edit,
    new_version,
    version_changed,
    version_facts,
)
from app.domain.constraints.schemas import check_content
from app.domain.kernel.errors import Conflict, ValidationFailed
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import OwnedNode
from app.graph.change_feed import unrecorded
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import ChangeAction, ConstraintKind, FactStatus

DOCUMENT = OwnedNode("ConstraintDocument", "document", what="constraint document")
CURRENT = """
MATCH (v:ConstraintVersion {id: $version_id, client_id: $client_id})
RETURN v.content_sha256 AS sha256
"""
NEW_VERSION = f"""
MATCH (d:ConstraintDocument {{id: $id, client_id: $client_id}})-[old:CURRENT_VERSION]->()
DELETE old
CREATE (v:ConstraintVersion)
SET v = $version
CREATE (d)-[:HAS_VERSION]->(v), (d)-[:CURRENT_VERSION]->(v)
SET d.current_version = v.version, d.current_version_id = v.id, d.title = v.title,
    d.updated_at = $now
WITH d, v
{WRITE_FACTS}
RETURN d {{.*}} AS document
"""


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
    """A new version unless the content and title are the current ones (a repeated edit saves
    nothing and is no conflict); CONFLICT when `base_version` is given and is not the current
    version."""
    title = check_edit(principal, reason=reason, title=title)
    if base_version is not None and base_version < 1:
        raise ValidationFailed("baseVersion starts at 1", field="baseVersion")
    scope = DOCUMENT.scope(principal, document_id)

    async def work(tx: Tx) -> dict[str, Any]:
        document = await DOCUMENT.locked(tx, scope)
        kind = ConstraintKind(document["kind"])
        checked = check_content(kind, content)
        encoded = stored.encode(checked)
        current = {"version_id": document["current_version_id"]} | scope
        unchanged = (await tx.run(CURRENT, current))[0]["sha256"] == encoded.sha256
        if unchanged and title in (None, document["title"]):
            unrecorded()  # the document's lock only: a repeated edit saves nothing
            return document
        check_base(document, base_version)
        version = new_version(
            principal,
            document_id=document_id,
            kind=kind,
            number=document["current_version"] + 1,
            title=title or document["title"],
            reason=reason,
        )
        active = scope | {"active": FactStatus.ACTIVE.value}
        known = [row["fact"] for row in await tx.run(ACTIVE_FACTS, active)]
        facts = version_facts(checked, known, version)
        # Under the document's lock, as the version number is; content-addressed, so a retry
        # of this transaction rewrites the same object.
        async with staged_uploads(artifacts, principal, shared=True) as uploads:
            version |= await stored.stored_props(uploads, encoded)
        params = scope | {"version": version, "facts": facts.params()}
        rows = await tx.run(NEW_VERSION, params | {"now": version["created_at"]})
        for change in version_changed(version, facts, ChangeAction.UPDATED):
            change.note()
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
