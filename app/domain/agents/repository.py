"""Agent repository: agents are named once per client ((client_id, name) is unique) and created
on first use; an agent key's agent_name is the agent its episodes run under by default."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from app.domain.agents.rules import check_agent_name
from app.domain.kernel.errors import NotFound, ValidationFailed
from app.domain.kernel.field_rules import MAX_TEXT, check_text
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.graph.change_feed import Changed, note_change, unrecorded
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import ChangeAction

# MERGE on the (client_id, name) uniqueness constraint: concurrent first uses make one agent.
# A given description replaces the stored one (updated_at moves only when it changes).
ENSURE_AGENT = """
MERGE (a:Agent {client_id: $client_id, name: $name})
ON CREATE SET a.id = $id, a.created_at = $now, a.updated_at = $now, a.description = $description
ON MATCH SET
  a.updated_at = CASE WHEN $description IS NULL OR $description = a.description
                      THEN a.updated_at ELSE $now END,
  a.description = coalesce($description, a.description)
RETURN a {.*} AS agent, a.id = $id AS created, a.updated_at = $now AS updated
"""
GET_AGENT = """
MATCH (a:Agent {client_id: $client_id, name: $name})
RETURN a {.*} AS agent
"""
# What a query that creates its agent on first use (fragments.merge_agent) returns of it.
AGENT_ROW = "a.id AS agent_id, a.id = $agent_id AS agent_created"


def new_agent(client_id: str, row: Mapping[str, Any]) -> list[Changed]:
    """The agent a write created on first use (the row has AGENT_ROW) is new to the feed too."""
    created = Changed(client_id, "Agent", row["agent_id"], ChangeAction.CREATED)
    return [created] if row["agent_created"] else []


def note_new_agent(client_id: str, row: Mapping[str, Any]) -> None:
    for change in new_agent(client_id, row):
        change.note()


def note_upsert(
    client_id: str,
    label: str,
    record_id: str,
    *,
    created: bool,
    updated: bool,
    parent_id: str | None = None,
) -> None:
    """A MERGE's record, CREATED or UPDATED; one that found the record as asked changed
    nothing (its SETs wrote the values already there), so nothing is noted."""
    if not (created or updated):
        unrecorded()
        return
    action = ChangeAction.CREATED if created else ChangeAction.UPDATED
    note_change(client_id, label, record_id, action, parent_id=parent_id)


def agent_name_for(principal: Principal, name: str | None) -> str:
    """The agent an episode runs under: the name given, else the API key's agent name."""
    if name is None:
        if principal.agent_name is None:
            raise ValidationFailed(
                "agentName is required: this API key names no agent", field="agent_name"
            )
        name = principal.agent_name
    return check_agent_name(name)


def acting_agent_name(principal: Principal, name: str | None) -> str:
    """The agent a write acts as: `agent_name_for` (checked first), bound to the key's own agent
    for agent keys (another agent's name is FORBIDDEN; reviewers and admins may name any)."""
    checked = agent_name_for(principal, name)
    return str(principal.acting_agent(checked))


async def ensure_agent(
    graph: GraphExecutor, *, principal: Principal, name: str | None, description: str | None
) -> dict[str, Any]:
    """The client's agent of that name (the key's agent when no name is given), created if new."""
    principal.require_writer()
    check_text({"description": description}, "description", limit=MAX_TEXT)
    params = {
        "client_id": principal.client_id,
        "name": acting_agent_name(principal, name),
        "description": description,
        "id": new_id(),
        "now": datetime.now(UTC),
    }

    async def work(tx: Tx) -> dict[str, Any]:
        row = (await tx.run(ENSURE_AGENT, params))[0]
        agent = dict(plain(row["agent"]))
        note_upsert(
            principal.client_id,
            "Agent",
            agent["id"],
            created=row["created"],
            updated=row["updated"],
        )
        return agent

    return await graph.in_transaction(work)


async def get_agent_by_name(
    graph: GraphExecutor, *, principal: Principal, name: str | None
) -> dict[str, Any]:
    agent_name = agent_name_for(principal, name)
    rows = await graph.read(GET_AGENT, {"client_id": principal.client_id, "name": agent_name})
    if not rows:
        raise NotFound(f"no agent named {agent_name!r}", name=agent_name)
    return dict(plain(rows[0]["agent"]))
