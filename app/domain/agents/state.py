"""Resumable agent state (seeds 001, 004): saved as a whole on the Agent node with a version
that every save bumps, under optimistic concurrency, and read back with the latest cycle in one
query (agent_resume_query)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain.agents import cycle_rules as rules
from app.domain.agents.repository import AGENT_ROW, acting_agent_name
from app.domain.kernel.field_rules import decoded
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.graph.change_feed import note_change
from app.graph.executor import GraphExecutor, Tx
from app.graph.fragments import lock, merge_agent
from app.graph.values import plain
from app.model.enums import ChangeAction

# The version is read after the agent is write-locked, so two saves that both expect version
# n cannot both succeed: the second sees n + 1 and is refused (CONFLICT, rolled back).
SAVE_STATE = f"""
{merge_agent()}
{lock("a")}
WITH a, coalesce(a.state_version, 0) AS current
WITH a, current, ($expected IS NULL OR $expected = current) AS allowed
SET a.state = CASE WHEN allowed THEN $state ELSE a.state END,
    a.state_version = CASE WHEN allowed THEN current + 1 ELSE a.state_version END,
    a.updated_at = CASE WHEN allowed THEN $now ELSE a.updated_at END
RETURN a {{.*}} AS agent, current, {AGENT_ROW}
"""


def agent_record(node: Any) -> dict[str, Any]:
    return decoded(dict(plain(node)), ("state",))


async def save_agent_state(
    graph: GraphExecutor,
    *,
    principal: Principal,
    agent_name: str | None,
    state: Any,
    expected_version: int | None,
) -> dict[str, Any]:
    """Replace the agent's state (the agent is created on first use). With expected_version,
    the save happens only if the stored version is still that one (0: nothing saved yet)."""
    principal.require_writer()
    name = acting_agent_name(principal, agent_name)
    expected = rules.check_expected_version(expected_version)
    params = {
        "client_id": principal.client_id,
        "agent_name": name,
        "agent_id": new_id(),
        "state": rules.state_text(state),
        "expected": expected,
        "now": datetime.now(UTC),
    }

    async def work(tx: Tx) -> dict[str, Any]:
        row = (await tx.run(SAVE_STATE, params))[0]
        rules.check_version(expected, int(row["current"]), agent_name=name)
        action = ChangeAction.CREATED if row["agent_created"] else ChangeAction.UPDATED
        note_change(principal.client_id, "Agent", row["agent_id"], action)
        return agent_record(row["agent"])

    return await graph.in_transaction(work)
