"""An agent's directives and runtime config overrides (seed 001) as immutable versions: an edit
makes version n + 1 under the agent's write lock (the (client_id, agent_name, version)
constraint backs this up), with who made it, when and why, and moves the agent's
CURRENT_CONFIG to it; every version stays (HAS_CONFIG_VERSION). Agents are created on first
use, as a cycle or a state save creates them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain.agents import config_rules as rules
from app.domain.agents.repository import AGENT_ROW, acting_agent_name, note_new_agent
from app.domain.kernel.field_rules import decoded
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.graph.change_feed import note_change, unrecorded
from app.graph.executor import GraphExecutor, Tx
from app.graph.fragments import lock, merge_agent
from app.graph.values import plain
from app.model.enums import ChangeAction

LOCK_CONFIG = f"""
{merge_agent()}
{lock("a")}
WITH a
OPTIONAL MATCH (a)-[:CURRENT_CONFIG]->(c:AgentConfigVersion {{client_id: $client_id}})
RETURN c {{.*}} AS current, {AGENT_ROW}
"""
NEW_VERSION = """
MATCH (a:Agent {client_id: $client_id, name: $agent_name})
OPTIONAL MATCH (a)-[old:CURRENT_CONFIG]->(:AgentConfigVersion)
DELETE old
CREATE (v:AgentConfigVersion)
SET v = $version
CREATE (a)-[:HAS_CONFIG_VERSION]->(v), (a)-[:CURRENT_CONFIG]->(v)
SET a.updated_at = $now
RETURN v {.*} AS version, a.id AS agent_id
"""


def config_record(node: Any) -> dict[str, Any]:
    return decoded(dict(plain(node)), ("config_overrides",))


async def set_agent_config(
    graph: GraphExecutor,
    *,
    principal: Principal,
    agent_name: str | None,
    fields: dict[str, Any],
) -> dict[str, Any]:
    """A new version of the agent's directives and config overrides (the key's agent by
    default; an agent key edits only its own), what the edit leaves out kept from the current
    version. An edit equal to the current version saves nothing and returns it (a retried
    edit); otherwise CONFLICT when `expected_version` is given and is not the current one."""
    principal.require_writer()
    name = acting_agent_name(principal, agent_name)
    edit = rules.check_edit(fields)
    now = datetime.now(UTC)
    scope = {"client_id": principal.client_id, "agent_name": name, "now": now}

    async def work(tx: Tx) -> dict[str, Any]:
        locked = (await tx.run(LOCK_CONFIG, scope | {"agent_id": new_id()}))[0]
        note_new_agent(principal.client_id, locked)
        current = None if locked["current"] is None else dict(plain(locked["current"]))
        state = rules.next_state(current, edit)
        if state is None:  # the current version, edited to itself: only the lock was written
            unrecorded()
            return config_record(current)
        number = int(current["version"]) if current else 0
        rules.check_base(edit["expected_version"], number, agent_name=name)
        version = state | {
            "id": new_id(),
            "client_id": principal.client_id,
            "agent_name": name,
            "version": number + 1,
            "author": principal.actor,
            "reason": edit["reason"],
            "created_at": now,
            "updated_at": now,
        }
        row = (await tx.run(NEW_VERSION, scope | {"version": version}))[0]
        _note_version(principal.client_id, version["id"], row["agent_id"])
        return config_record(row["version"])

    return await graph.in_transaction(work)


def _note_version(client_id: str, version_id: str, agent_id: str) -> None:
    """The new version, and its agent, whose current config it now is."""
    note_change(
        client_id, "AgentConfigVersion", version_id, ChangeAction.CREATED, parent_id=agent_id
    )
    note_change(client_id, "Agent", agent_id, ChangeAction.UPDATED)
