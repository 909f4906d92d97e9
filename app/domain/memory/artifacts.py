"""Verbatim attachments of memory records and sessions (transcripts, files): bytes uploaded
here (stored under client/{client_id}/memory/artifacts/{sha256}, before the node), or an
object the client already has in storage under its own prefix."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import check_upload
from app.domain.kernel.ids import check_id, new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import check_artifact_ref, missing
from app.domain.memory import rules
from app.domain.memory.access_log import audited
from app.domain.memory.owner import owned, owner_params, refuse_foreign
from app.graph.change_feed import Changed
from app.graph.executor import GraphExecutor
from app.graph.fragments import live
from app.graph.values import plain
from app.model.enums import ChangeAction

OWNERS = {
    "MemoryRecord": f"""
MATCH (o:MemoryRecord {{id: $owner_id, client_id: $client_id}})
WHERE {live("o")} AND {owned("o")}
""",
    "MemorySession": "MATCH (o:MemorySession {id: $owner_id, client_id: $client_id})",
}
ATTACH = {
    label: f"""{match}
CREATE (o)-[:HAS_ARTIFACT]->(a:MemoryArtifact)
SET a = $props
RETURN a {{.*}} AS artifact"""
    for label, match in OWNERS.items()
}


async def attach_artifact(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    owner_id: str,
    kind: str,
    data: bytes | None = None,
    uri: str | None = None,
    content_type: str = "text/plain; charset=utf-8",
    owner_label: str = "MemoryRecord",
) -> dict[str, Any]:
    """A MemoryArtifact linked from the owner by HAS_ARTIFACT; give `data` or `uri`."""
    with audited(principal, "attach", target_id=owner_id, target_type=owner_label) as audit:
        principal.require_writer()
        if owner_label not in OWNERS:
            raise ValidationFailed(f"artifacts attach to {', '.join(OWNERS)}", field="owner")
        owner = check_id(owner_id, field="owner_id")
        rules.check_segment(kind, field="kind")
        if (data is None) == (uri is None):
            raise ValidationFailed("give the content (base64) or a uri, not both", field="uri")
        scope = {"client_id": principal.client_id, "now": datetime.now(UTC)}
        scope |= owner_params(principal)
        if data is not None:
            check_upload(data, content_type, field="content")
            digest = hashlib.sha256(data).hexdigest()
            stored = await artifacts.put(
                principal, ("memory", "artifacts", digest), data, content_type=content_type
            )
            uri, size = stored.uri, stored.size
        else:
            uri = await check_artifact_ref(artifacts, principal=principal, uri=uri, field="uri")
            body = await artifacts.get(principal, uri)
            check_upload(body, content_type, field="uri")
            digest, size = hashlib.sha256(body).hexdigest(), len(body)
        now, artifact_id = datetime.now(UTC), new_id()
        props = {
            "id": artifact_id,
            "client_id": principal.client_id,
            "owner_id": owner,
            "kind": kind,
            "uri": uri,
            "sha256": digest,
            "size": size,
            "content_type": content_type,
            "created_at": now,
            "updated_at": now,
        }
        params = scope | {"owner_id": owner, "now": now, "props": props}
        client_id, action = principal.client_id, ChangeAction.CREATED
        created = Changed(client_id, "MemoryArtifact", artifact_id, action, parent_id=owner)
        rows = await graph.write(
            ATTACH[owner_label], params, changed=lambda rows: [created] if rows else []
        )
        if not rows:
            if owner_label == "MemoryRecord":  # another agent's record is FORBIDDEN, not missing
                await refuse_foreign(graph, principal, "id", scope | {"id": owner})
            raise missing(owner_label, owner)
        audit.detail = f"{kind} {size} bytes"
        return dict(plain(rows[0]["artifact"]))
