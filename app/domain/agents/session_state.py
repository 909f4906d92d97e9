"""Agent state per session (seed 004 agent_states with a session_id): beside the agent's global
state (state.py), one AgentSessionState per (client, agent, session), linked
(Agent)-[:HAS_SESSION_STATE]->(state)<-[:HAS_AGENT_STATE]-(MemorySession), replaced as a whole
under the same optimistic concurrency, with an optional expiry. An expired state reads as none
(every compiled read hides it; a save over it starts again at version 1) until the sweeper
purges it (app/domain/memory/session_states.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain.agents import cycle_rules as rules
from app.domain.agents.repository import (
    AGENT_ROW,
    acting_agent_name,
    agent_name_for,
    note_new_agent,
)
from app.domain.kernel.errors import Conflict, NotFound
from app.domain.kernel.field_rules import decoded
from app.domain.kernel.ids import check_id, new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import missing
from app.domain.memory.value_rules import check_expiry
from app.graph.change_feed import Changed, note_change
from app.graph.executor import GraphExecutor, Record, Tx
from app.graph.fragments import live, lock, merge_agent
from app.graph.values import plain
from app.model.enums import ChangeAction

STATE = "AgentSessionState"
# MERGE on the (client_id, agent_name, session_id) uniqueness constraint: concurrent first
# saves make one node; its lock is taken before its version is read.
SAVE = f"""
MATCH (s:MemorySession {{id: $session_id, client_id: $client_id}})
{merge_agent()}
MERGE (st:AgentSessionState {{client_id: $client_id, agent_name: $agent_name,
                              session_id: $session_id}})
ON CREATE SET st.id = $id, st.created_at = $now, st.version = 0, st.active = true
{lock("st")}
WITH s, a, st, CASE WHEN {live("st")} THEN st.version ELSE 0 END AS current
WITH s, a, st, current, $expected IS NULL OR $expected = current AS allowed
FOREACH (_ IN CASE WHEN allowed THEN [1] ELSE [] END |
  SET st.state = $state, st.version = current + 1, st.expires_at = $expires_at,
      st.updated_at = $now
  MERGE (a)-[:HAS_SESSION_STATE]->(st)
  MERGE (s)-[:HAS_AGENT_STATE]->(st))
RETURN st {{.*}} AS state, current, st.id = $id AS created, {AGENT_ROW}
"""
READ = f"""
MATCH (st:AgentSessionState {{client_id: $client_id, agent_name: $agent_name,
                              session_id: $session_id}})
WHERE {live("st")}
RETURN st {{.*}} AS state
"""
# An expired state goes too, but counts as none (it already read as none).
CLEAR = f"""
MATCH (st:AgentSessionState {{client_id: $client_id, agent_name: $agent_name,
                              session_id: $session_id}})
WITH st, {live("st")} AS shown, st.id AS id
DETACH DELETE st
WITH sum(CASE WHEN shown THEN 1 ELSE 0 END) AS cleared, collect(id) AS ids
OPTIONAL MATCH (a:Agent {{client_id: $client_id, name: $agent_name}})
RETURN cleared, ids, a.id AS agent_id
"""


def session_state_record(node: Any) -> dict[str, Any]:
    return decoded(dict(plain(node)), ("state",))


def _params(principal: Principal, agent_name: str, session_id: str) -> dict[str, Any]:
    return {
        "client_id": principal.client_id,
        "agent_name": agent_name,
        "session_id": check_id(session_id, field="session_id"),
        "now": datetime.now(UTC),
    }


def _check_version(expected: int | None, current: int, params: dict[str, Any]) -> None:
    if expected is not None and expected != current:
        raise Conflict(
            f"agent {params['agent_name']!r} state in session {params['session_id']} is at "
            f"version {current}, not {expected}: re-read it (agentSessionState), merge, and "
            f"save with expectedVersion {current}",
            expected_version=expected,
            current_version=current,
        )


async def save_agent_session_state(
    graph: GraphExecutor,
    *,
    principal: Principal,
    session_id: str,
    state: Any,
    agent_name: str | None = None,
    expected_version: int | None = None,
    expires_at: datetime | None = None,
    ttl_seconds: float | None = None,
) -> dict[str, Any]:
    """Replace the agent's state in the caller's session (NOT_FOUND for another client's or a
    missing session). expected_version: as saveAgentState (0: none saved, or it expired)."""
    principal.require_writer()
    name = acting_agent_name(principal, agent_name)
    params = _params(principal, name, session_id)
    expected = rules.check_expected_version(expected_version)
    params |= {
        "id": new_id(),
        "agent_id": new_id(),
        "state": rules.state_text(state),
        "expected": expected,
        "expires_at": check_expiry(expires_at, ttl_seconds, now=params["now"]),
    }

    async def work(tx: Tx) -> dict[str, Any]:
        rows = await tx.run(SAVE, params)
        if not rows:
            raise missing("memory session", params["session_id"])
        row = rows[0]
        _check_version(expected, int(row["current"]), params)
        note_new_agent(principal.client_id, row)
        action = ChangeAction.CREATED if row["created"] else ChangeAction.UPDATED
        state_id, agent_id = row["state"]["id"], row["agent_id"]
        note_change(principal.client_id, STATE, state_id, action, parent_id=agent_id)
        return session_state_record(row["state"])

    return await graph.in_transaction(work)


async def agent_session_state(
    graph: GraphExecutor, *, principal: Principal, session_id: str, agent_name: str | None = None
) -> dict[str, Any] | None:
    """The agent's live state in the session (the key's agent by default), or None."""
    params = _params(principal, agent_name_for(principal, agent_name), session_id)
    rows = await graph.read(READ, params)
    return session_state_record(rows[0]["state"]) if rows else None


async def clear_agent_session_state(
    graph: GraphExecutor, *, principal: Principal, session_id: str, agent_name: str | None = None
) -> int:
    """Delete the agent's state in the session; 1, or NOT_FOUND when it has none."""
    principal.require_writer()
    params = _params(principal, acting_agent_name(principal, agent_name), session_id)

    def deleted(rows: list[Record]) -> list[Changed]:
        row = rows[0]
        return [
            Changed(principal.client_id, STATE, i, ChangeAction.DELETED, parent_id=row["agent_id"])
            for i in row["ids"]
        ]

    cleared = int((await graph.write(CLEAR, params, changed=deleted))[0]["cleared"])
    if not cleared:
        raise NotFound(
            f"agent {params['agent_name']!r} has no state in session {params['session_id']}",
            id=params["session_id"],
        )
    return cleared
