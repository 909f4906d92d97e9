"""Forgetting memory records: soft (inactive, kept, revived by a new write) or hard (the record,
its versions and artifacts deleted, then the stored objects nothing points at any more)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import missing
from app.domain.memory.access_log import audited
from app.domain.memory.content import purge_record, remove_unreferenced
from app.domain.memory.locate import LIVE, NOT_EXPIRED, RETURN_RECORD, Locator, locate
from app.domain.memory.owner import owned, owner_params, refuse_foreign
from app.graph.change_feed import Changed
from app.graph.executor import GraphExecutor
from app.model.enums import ChangeAction

SOFT_FORGET = {
    by: f"""{match} WHERE {LIVE} AND {owned("r")}
SET r.active = false, r.deleted_at = $now, r.updated_at = $now
{RETURN_RECORD}"""
    for by, match in Locator.MATCHES.items()
}
HARD_FORGET = {
    by: f"""{match} WHERE {NOT_EXPIRED} AND {owned("r")}
{purge_record("r.id AS id, r.active AS active,")}
RETURN id, active, uris, size(versions) AS versions"""
    for by, match in Locator.MATCHES.items()
}


def forgotten(principal: Principal, record_ids: list[str]) -> list[Changed]:
    """Soft or hard, a forgotten record is gone for every reader but an admin's history."""
    return [
        Changed(principal.client_id, "MemoryRecord", record_id, ChangeAction.DELETED)
        for record_id in record_ids
    ]


async def forget(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    record_id: str | None = None,
    namespace: dict[str, Any] | str | None = None,
    key: str | None = None,
    hard: bool = False,
) -> dict[str, Any]:
    """Soft: the record becomes inactive (kept, readable by admins, revived by a new write).
    Hard: the record, its versions and artifacts are deleted, and their objects in storage
    once nothing else points at them. {id, hard, versions_deleted, objects_deleted}."""
    with audited(principal, "purge" if hard else "delete", target_id=record_id) as audit:
        principal.require_writer()
        if isinstance(namespace, dict):
            principal.require_agent(namespace.get("agent"), what="forget memory of agent")
        where = locate(record_id, namespace, key)
        audit.detail = where.describe()
        params = where.params | {"client_id": principal.client_id, "now": datetime.now(UTC)}
        params |= owner_params(principal)
        if not hard:
            rows = await graph.write(
                SOFT_FORGET[where.by],
                params,
                changed=lambda rows: forgotten(principal, [row["record"]["id"] for row in rows]),
            )
            if not rows:
                await refuse_foreign(graph, principal, where.by, params)
                raise missing("memory record", where.describe())
            audit.target_id = rows[0]["record"]["id"]
            return {"id": audit.target_id, "hard": False, "versions_deleted": 0}
        rows = await graph.write(
            HARD_FORGET[where.by],
            params,
            changed=lambda rows: forgotten(principal, [row["id"] for row in rows]),
        )
        if not rows:
            await refuse_foreign(graph, principal, where.by, params)
            raise missing("memory record", where.describe())
        row = rows[0]
        audit.target_id = row["id"]
        removed = await remove_unreferenced(graph, artifacts, list(row["uris"]))
        audit.detail = f"{row['versions']} versions, {removed} objects"
        return {
            "id": row["id"],
            "hard": True,
            "versions_deleted": int(row["versions"]),
            "objects_deleted": removed,
        }
