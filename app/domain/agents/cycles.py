"""Agent cycles (seed 001): record a proposal, complete it with its result, and link the memory
records a cycle produced.

A cycle's sequence number is assigned while the agent node is write-locked, so concurrent
recordCycle calls for one agent get 1, 2, 3, ... without gaps or duplicates (the
(client_id, agent_name, sequence) constraint backs this up). Agents are created on first use,
as episodes create them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain.agents import cycle_outputs as outputs
from app.domain.agents import cycle_rules as rules
from app.domain.agents.repository import AGENT_ROW, acting_agent_name, note_new_agent
from app.domain.kernel.field_rules import decoded
from app.domain.kernel.ids import check_id, new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import first_record, missing
from app.graph.change_feed import note_change
from app.graph.executor import GraphExecutor, Tx
from app.graph.fragments import live, lock, lock_query, merge_agent
from app.graph.values import plain
from app.model.enums import AgentCycleStatus, ChangeAction

JSON_FIELDS = ("tool_call", "plan", "output")
# A memory a cycle may link: the caller's, not forgotten, not expired.
LIVE_MEMORY = live("m")
MISSING_MEMORIES = f"""
[id IN $memory_ids WHERE NOT EXISTS {{
   MATCH (m:MemoryRecord {{id: id, client_id: $client_id}}) WHERE {LIVE_MEMORY} }}]"""
LOCK_AGENT_FOR_CYCLE = f"""
{merge_agent()}
{lock("a")}
WITH a
OPTIONAL CALL (a) {{
  MATCH (c:AgentCycle {{client_id: $client_id, agent_name: $agent_name}})
  RETURN c.sequence AS last ORDER BY c.sequence DESC LIMIT 1
}}
RETURN coalesce(last, 0) AS last, {MISSING_MEMORIES} AS missing, {AGENT_ROW}
"""
LINK_MEMORIES = f"""
CALL (c) {{
  UNWIND $memory_ids AS memory_id
  MATCH (m:MemoryRecord {{id: memory_id, client_id: $client_id}}) WHERE {LIVE_MEMORY}
  MERGE (c)-[:PRODUCED]->(m)
}}
OPTIONAL MATCH (a:Agent {{client_id: $client_id, name: c.agent_name}})
RETURN c {{.*}} AS cycle, a.id AS agent_id
"""
CREATE_CYCLE = f"""
MATCH (a:Agent {{client_id: $client_id, name: $props.agent_name}})
CREATE (a)-[:HAS_CYCLE]->(c:AgentCycle)
SET c = $props
WITH c
{LINK_MEMORIES}
"""
LOCK_CYCLE = lock_query("AgentCycle", "cycle", f"{MISSING_MEMORIES} AS missing")
COMPLETE_CYCLE = f"""
MATCH (c:AgentCycle {{id: $id, client_id: $client_id}})
SET c += $changes
WITH c
{LINK_MEMORIES}
"""


def cycle_record(node: Any) -> dict[str, Any]:
    return decoded(dict(plain(node)), JSON_FIELDS)


def _check_found(absent: list[str]) -> None:
    if absent:
        raise missing("memory record", absent[0])


async def record_cycle(
    graph: GraphExecutor,
    *,
    principal: Principal,
    agent_name: str | None,
    fields: dict[str, Any],
    memory_ids: list[str] | None = None,
    workspace_id: str | None = None,
    workspace_cues: list[str] | None = None,
) -> dict[str, Any]:
    """A proposed cycle of the agent (the key's agent by default), numbered after its last one,
    PRODUCED-linked to the given memory records of the caller, cueing paths of a workspace."""
    principal.require_writer()
    name = acting_agent_name(principal, agent_name)
    proposal = rules.check_proposal(fields)
    ids = rules.memory_ids(memory_ids)
    cues = outputs.check_workspace_cues(workspace_id, workspace_cues)
    now = datetime.now(UTC)
    scope = {"client_id": principal.client_id, "memory_ids": ids, "now": now}

    async def work(tx: Tx) -> dict[str, Any]:
        params = scope | {"agent_name": name, "agent_id": new_id()}
        row = (await tx.run(LOCK_AGENT_FOR_CYCLE, params))[0]
        _check_found(row["missing"])
        note_new_agent(principal.client_id, row)
        props = proposal | {
            "id": new_id(),
            "client_id": principal.client_id,
            "agent_name": name,
            "sequence": int(row["last"]) + 1,
            "status": AgentCycleStatus.PROPOSED.value,
            "workspace_cues": cues.paths or None,
            "created_at": now,
            "updated_at": now,
        }
        rows = await tx.run(CREATE_CYCLE, scope | {"props": props})
        await outputs.cue_workspace(tx, scope | {"id": props["id"]}, cues)
        _note_cycle(principal.client_id, rows[0], ChangeAction.CREATED)
        return cycle_record(rows[0]["cycle"])

    return await graph.in_transaction(work)


async def complete_cycle(
    graph: GraphExecutor,
    *,
    principal: Principal,
    cycle_id: str,
    fields: dict[str, Any],
    memory_ids: list[str] | None = None,
    workspace_file_ids: list[str] | None = None,
    artifact_ids: list[str] | None = None,
) -> dict[str, Any]:
    """The result of a proposed cycle (succeeded or failed, output, error); then it is final.
    More produced memory records, and the workspace files and artifacts it produced, may be
    linked on the way."""
    principal.require_writer()
    result = rules.check_result(fields)
    ids = rules.memory_ids(memory_ids)
    produced = outputs.check_outputs(workspace_file_ids, artifact_ids)
    now = datetime.now(UTC)
    record_id = check_id(cycle_id)
    scope = {
        "id": record_id,
        "client_id": principal.client_id,
        "memory_ids": ids,
        "now": now,
    }

    async def work(tx: Tx) -> dict[str, Any]:
        rows = await tx.run(LOCK_CYCLE, scope)
        current = first_record(rows, "cycle", what="agent cycle", record_id=record_id)
        principal.require_agent(current.get("agent_name"), what="complete a cycle of agent")
        rules.check_completion(current["status"], result["status"], cycle_id=record_id)
        _check_found(rows[0]["missing"])
        await outputs.link_outputs(tx, scope, produced)
        changes = result | {"finished_at": now, "updated_at": now}
        rows = await tx.run(COMPLETE_CYCLE, scope | {"changes": changes})
        _note_cycle(principal.client_id, rows[0], ChangeAction.UPDATED)
        return cycle_record(rows[0]["cycle"])

    return await graph.in_transaction(work)


def _note_cycle(client_id: str, row: dict[str, Any], action: ChangeAction) -> None:
    """The cycle (a row of LINK_MEMORIES), under its agent."""
    cycle_id = row["cycle"]["id"]
    note_change(client_id, "AgentCycle", cycle_id, action, parent_id=row["agent_id"])
