"""Verbatim records of a session (seed 003: full transcripts, kept apart from memory): stored in
object storage under client/{client_id}/sessions/{session_id}/{kind}/{sha256} BEFORE the
MemoryArtifact node that points at it, (session)-[:HAS_ARTIFACT]->(artifact), with sha256 and
size recorded. A flushed session still takes artifacts (transcripts usually come after the
call). Content-addressed keys make a retry rewrite the same object."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.artifacts.keys import KEY_PART
from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import check_upload
from app.domain.kernel.ids import check_id, new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import first_record, missing, stored_object
from app.domain.memory import audited
from app.domain.sessions.reads import get_session
from app.domain.sessions.repository import owned_session
from app.graph.change_feed import note_change
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import ChangeAction

DEFAULT_KIND = "transcript"
CREATE_ARTIFACT = """
MATCH (s:MemorySession {id: $id, client_id: $client_id})
CREATE (s)-[:HAS_ARTIFACT]->(a:MemoryArtifact)
SET a = $props
RETURN a {.*} AS artifact
"""
SESSION_ARTIFACT = """
MATCH (s:MemorySession {client_id: $client_id})-[:HAS_ARTIFACT]->
      (a:MemoryArtifact {id: $id, client_id: $client_id})
RETURN a {.*} AS artifact
"""


@dataclass(frozen=True)
class ArtifactContent:
    artifact: dict[str, Any]
    data: bytes

    @property
    def intact(self) -> bool:
        """The bytes read back hash to the sha256 recorded when they were attached."""
        return hashlib.sha256(self.data).hexdigest() == self.artifact["sha256"]


def check_kind(value: Any) -> str:
    kind = DEFAULT_KIND if value is None else value
    if not isinstance(kind, str) or not KEY_PART.match(kind) or len(kind) > 64:
        raise ValidationFailed(
            "kind must be 1-64 characters: letters, digits, '.', '_', '-' (e.g. transcript)",
            field="kind",
        )
    return kind


async def attach_artifact(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    session_id: str,
    data: bytes,
    content_type: str,
    kind: str | None = None,
) -> dict[str, Any]:
    """Store the bytes, then the MemoryArtifact linked to the session; the artifact."""
    principal.require_writer()
    check_upload(data, content_type, field="content")
    checked_kind = check_kind(kind)
    with audited(principal, "attach", target_id=session_id) as audit:
        audit.target_type, audit.detail = "MemorySession", checked_kind
        # Checked first so that a missing session leaves no object behind.
        session = await get_session(graph, principal=principal, session_id=session_id)
        owned_session(principal, session)
        digest = hashlib.sha256(data).hexdigest()
        parts = ("sessions", session["id"], checked_kind, digest)
        stored = await artifacts.put(principal, parts, data, content_type=content_type)
        now = datetime.now(UTC)
        props = {
            "id": new_id(),
            "client_id": principal.client_id,
            "owner_id": session["id"],
            "kind": checked_kind,
            **stored_object(stored),
            "created_at": now,
            "updated_at": now,
        }
        params = {"id": session["id"], "client_id": principal.client_id, "props": props}

        async def work(tx: Tx) -> dict[str, Any]:
            rows = await tx.run(CREATE_ARTIFACT, params)
            what, record_id = "memory session", session["id"]
            artifact = dict(first_record(rows, "artifact", what=what, record_id=record_id))
            created = ChangeAction.CREATED
            note_change(
                principal.client_id, "MemoryArtifact", artifact["id"], created, parent_id=record_id
            )
            return artifact

        return await graph.in_transaction(work)


async def read_artifact(
    graph: GraphExecutor, artifacts: ArtifactStore, *, principal: Principal, artifact_id: str
) -> ArtifactContent:
    """A session artifact with its bytes from object storage (NOT_FOUND if not the caller's)."""
    record_id = check_id(artifact_id, field="artifact_id")
    with audited(principal, "read", target_id=record_id) as audit:
        audit.target_type = "MemoryArtifact"
        params = {"id": record_id, "client_id": principal.client_id}
        rows = await graph.read(SESSION_ARTIFACT, params)
        if not rows:
            raise missing("session artifact", record_id)
        artifact = dict(plain(rows[0]["artifact"]))
        return ArtifactContent(artifact, await artifacts.get(principal, artifact["uri"]))
