"""Workspaces: an agent's named sandboxes ((client_id, agent_name, name) is unique), the agent
created on first use. Writes to a workspace hold its write lock (file versions are numbered and
the counters kept under it, and a snapshot sees one moment); an agent key writes only to its own
agent's workspaces, every key of the client reads them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from neo4j.exceptions import ConstraintError

from app.domain.agents import acting_agent_name
from app.domain.agents.repository import AGENT_ROW, new_agent
from app.domain.kernel.errors import Conflict
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import OwnedNode
from app.domain.workspaces import rules
from app.graph.change_feed import Changed
from app.graph.executor import GraphExecutor, Record, Tx
from app.graph.fragments import merge_agent
from app.graph.values import plain
from app.model.enums import ChangeAction

WORKSPACE = OwnedNode("Workspace", "workspace", what="workspace")
EXISTING = """
MATCH (w:Workspace {client_id: $client_id, agent_name: $agent_name, name: $name})
RETURN w.id AS id
"""
CREATE_WORKSPACE = f"""
{merge_agent()}
CREATE (a)-[:HAS_WORKSPACE]->(w:Workspace)
SET w = $props
RETURN w {{.*}} AS workspace, {AGENT_ROW}
"""


async def create_workspace(
    graph: GraphExecutor, *, principal: Principal, fields: dict[str, Any]
) -> dict[str, Any]:
    """A new empty workspace of the agent (the key's agent by default); CONFLICT when the
    agent has one of that name."""
    principal.require_writer()
    agent_name = acting_agent_name(principal, fields.get("agent_name"))
    name = rules.check_name(fields.get("name"))
    now = datetime.now(UTC)
    props = {
        "id": new_id(),
        "client_id": principal.client_id,
        "agent_name": agent_name,
        "name": name,
        "description": rules.check_description(fields),
        "file_count": 0,
        "total_bytes": 0,
        "created_at": now,
        "updated_at": now,
    }
    scope = {"client_id": principal.client_id, "agent_name": agent_name, "name": name}
    await _refuse_second(graph.read, scope)
    params = scope | {"props": props, "agent_id": new_id(), "now": now}
    try:
        rows = await graph.write(CREATE_WORKSPACE, params, changed=_created)
    except ConstraintError:
        await _refuse_second(graph.read_latest, scope)  # the create that came first
        raise
    return dict(plain(rows[0]["workspace"]))


def _created(rows: list[Record]) -> list[Changed]:
    """The workspace, under its agent (created with it on first use)."""
    row = rows[0]
    client_id, workspace_id = row["workspace"]["client_id"], row["workspace"]["id"]
    workspace = Changed(
        client_id, WORKSPACE.label, workspace_id, ChangeAction.CREATED, parent_id=row["agent_id"]
    )
    return [*new_agent(client_id, row), workspace]


async def _refuse_second(read: Any, scope: dict[str, Any]) -> None:
    rows = await read(EXISTING, scope)
    if rows:
        raise Conflict(
            f"agent {scope['agent_name']!r} has a workspace named {scope['name']!r} already "
            f"({rows[0]['id']}): write to it, or choose another name",
            id=rows[0]["id"],
        )


async def writable_workspace(
    graph: GraphExecutor, principal: Principal, workspace_id: str
) -> dict[str, Any]:
    """The caller's workspace that it may write to (checked before anything is uploaded)."""
    principal.require_writer()
    scope = WORKSPACE.scope(principal, workspace_id, field="workspace_id")
    workspace = await WORKSPACE.read(graph, scope)
    principal.require_agent(workspace["agent_name"], what="write to a workspace of agent")
    return workspace


async def locked_workspace(tx: Tx, principal: Principal, workspace_id: str) -> dict[str, Any]:
    """The workspace write-locked for the rest of the transaction."""
    return await WORKSPACE.locked(tx, WORKSPACE.scope(principal, workspace_id))
