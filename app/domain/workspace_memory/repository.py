"""Workspace memory (seed 002): the client's shared context, one value per key. A write with a
key the client has replaces the value (a new version only when something changed); a delete
removes it. Every query is scoped by the caller's client."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain.kernel.errors import NotFound
from app.domain.kernel.field_rules import decoded
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.domain.memory.rules import check_key
from app.domain.workspace_memory.rules import check_workspace_memory
from app.graph.change_feed import Changed, note_change, unrecorded
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import ChangeAction

JSON_FIELDS = ("value", "metadata")
# The unique constraint on (client_id, key) makes MERGE race-safe. updated_at moves only with
# a change, so an unchanged rewrite is not embedded again.
UPSERT = """
MERGE (w:WorkspaceMemory {client_id: $client_id, key: $key})
ON CREATE SET w.id = $id, w.created_at = $now, w.version = 0
WITH w, w.version = 0 OR w.memory_type <> $memory_type OR w.value <> $value
     OR w.priority <> $priority OR coalesce(w.metadata <> $metadata,
                                            w.metadata IS NOT NULL OR $metadata IS NOT NULL)
     AS changed
SET w.memory_type = $memory_type, w.value = $value, w.metadata = $metadata,
    w.priority = $priority,
    w.version = CASE WHEN changed THEN w.version + 1 ELSE w.version END,
    w.updated_at = CASE WHEN changed THEN $now ELSE w.updated_at END
RETURN w {.*} AS memory, changed
"""
BY_KEY = """
MATCH (w:WorkspaceMemory {client_id: $client_id, key: $key})
RETURN w {.*} AS memory
"""
DELETE = """
MATCH (w:WorkspaceMemory {client_id: $client_id, key: $key})
WITH w, w {.*} AS memory
DETACH DELETE w
RETURN memory
"""


def workspace_record(row: Any) -> dict[str, Any]:
    return decoded(plain(row), JSON_FIELDS)


async def put_workspace_memory(
    graph: GraphExecutor, *, principal: Principal, fields: dict[str, Any]
) -> dict[str, Any]:
    """The client's value under `key`, created or replaced."""
    principal.require_writer()
    values = check_workspace_memory(fields)
    params = values | {"client_id": principal.client_id, "id": new_id(), "now": datetime.now(UTC)}

    async def work(tx: Tx) -> dict[str, Any]:
        row = (await tx.run(UPSERT, params))[0]
        memory = row["memory"]
        if not row["changed"]:
            unrecorded()  # the same value again: nothing an app would see changed
        else:
            created = memory["id"] == params["id"]
            action = ChangeAction.CREATED if created else ChangeAction.UPDATED
            note_change(principal.client_id, "WorkspaceMemory", memory["id"], action)
        return workspace_record(memory)

    return await graph.in_transaction(work)


async def get_workspace_memory(
    graph: GraphExecutor, *, principal: Principal, key: str
) -> dict[str, Any]:
    """The client's value under `key` (NOT_FOUND, as for another client's key, when none)."""
    name = check_key(key, required=True)
    rows = await graph.read(BY_KEY, {"client_id": principal.client_id, "key": name})
    if not rows:
        raise NotFound(f"no workspace memory with key {name!r}", key=name)
    return workspace_record(rows[0]["memory"])


def deleted(principal: Principal, rows: list[dict[str, Any]]) -> list[Changed]:
    return [
        Changed(principal.client_id, "WorkspaceMemory", row["memory"]["id"], ChangeAction.DELETED)
        for row in rows
    ]


async def delete_workspace_memory(
    graph: GraphExecutor, *, principal: Principal, key: str
) -> dict[str, Any]:
    """Remove the client's value under `key`; the value as it was (NOT_FOUND when none)."""
    principal.require_writer()
    name = check_key(key, required=True)
    params = {"client_id": principal.client_id, "key": name}
    rows = await graph.write(DELETE, params, changed=lambda rows: deleted(principal, rows))
    if not rows:
        raise NotFound(f"no workspace memory with key {name!r}", key=name)
    return workspace_record(rows[0]["memory"])
