"""Constraint documents: the client's one document of a kind, created with its version 1 (one
transaction, scoped by $client_id; large content stored before the version that points at it).
Edits: edits.py."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from neo4j.exceptions import ConstraintError

from app.artifacts.staged import staged_uploads
from app.artifacts.store import ArtifactStore
from app.domain.constraints import content as stored
from app.domain.constraints.facts import NO_FACTS, WRITE_FACTS, FactChanges, fact_changes
from app.domain.constraints.schemas import check_content
from app.domain.kernel.errors import Conflict, ValidationFailed
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import REVIEWER_ROLES, Principal
from app.graph.change_feed import Changed
from app.graph.executor import GraphExecutor
from app.graph.values import plain
from app.model.enums import ChangeAction, ConstraintKind

MAX_TITLE = 200
MAX_REASON = 2_000
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


def check_edit(principal: Principal, *, reason: str, title: str | None) -> str | None:
    """Role and the version's own fields; the title as stored (None: unchanged)."""
    principal.require(*REVIEWER_ROLES)
    if not reason.strip() or len(reason) > MAX_REASON:
        raise ValidationFailed(f"reason must say why in 1-{MAX_REASON} characters", field="reason")
    if title is None:
        return None
    if not title.strip() or len(title) > MAX_TITLE:
        raise ValidationFailed(f"title must be 1-{MAX_TITLE} characters", field="title")
    return title.strip()


def new_version(
    principal: Principal,
    *,
    document_id: str,
    kind: ConstraintKind,
    number: int,
    title: str,
    reason: str,
) -> dict[str, Any]:
    now = datetime.now(UTC)
    return {
        "id": new_id(),
        "client_id": principal.client_id,
        "document_id": document_id,
        "kind": kind.value,
        "version": number,
        "title": title,
        "author": principal.actor,
        "reason": reason.strip(),
        "created_at": now,
        "updated_at": now,
    }


def version_facts(
    checked: dict[str, Any], known: list[dict[str, Any]], version: dict[str, Any]
) -> FactChanges:
    """The knowledge base facts a version writes (none for the other kinds)."""
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


def version_changed(
    version: dict[str, Any], facts: FactChanges, document: ChangeAction
) -> list[Changed]:
    """A new version: its document (`document`: created with it, or updated), the version
    and the facts it writes."""
    client_id, document_id = version["client_id"], version["document_id"]
    return [
        Changed(client_id, "ConstraintDocument", document_id, document),
        Changed(
            client_id,
            "ConstraintVersion",
            version["id"],
            ChangeAction.CREATED,
            parent_id=document_id,
        ),
        *facts.changed(client_id, document_id),
    ]


async def create_document(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    fields: dict[str, Any],
) -> dict[str, Any]:
    """The client's document of `fields["kind"]` with its version 1 (its `title`, `content`
    and the `reason`); CONFLICT if it has one already."""
    kind, reason = ConstraintKind(fields["kind"]), fields["reason"]
    title = check_edit(principal, reason=reason, title=fields["title"]) or ""
    checked = check_content(kind, fields["content"])
    encoded = stored.encode(checked)
    scope = {"client_id": principal.client_id, "kind": kind.value}
    await _refuse_second(graph.read, scope, kind)
    document_id = new_id()
    version = new_version(
        principal, document_id=document_id, kind=kind, number=1, title=title, reason=reason
    )
    document = {
        "id": document_id,
        "client_id": principal.client_id,
        "kind": kind.value,
        "title": title,
        "current_version": 1,
        "current_version_id": version["id"],
        "created_at": version["created_at"],
        "updated_at": version["created_at"],
    }
    facts = version_facts(checked, [], version)
    try:
        async with staged_uploads(artifacts, principal, shared=True) as uploads:
            version |= await stored.stored_props(uploads, encoded)
            params = scope | {"document": document, "version": version, "facts": facts.params()}
            changed = version_changed(version, facts, ChangeAction.CREATED)
            params |= {"now": version["created_at"]}
            rows = await graph.write(CREATE_DOCUMENT, params, changed=changed)
    except ConstraintError:
        # Another create of this kind committed first: the leader has seen it.
        await _refuse_second(graph.read_latest, scope, kind)
        raise
    return dict(plain(rows[0]["document"]))


async def _refuse_second(read: Any, scope: dict[str, Any], kind: ConstraintKind) -> None:
    rows = await read(EXISTING, scope)
    if rows:
        raise Conflict(
            f"this client has a {kind.value} document already ({rows[0]['id']}): edit it "
            "(editConstraintDocument) to make a new version",
            id=rows[0]["id"],
        )
