"""A step of the memory sweeper (app/domain/memory/sweep_steps.py): agent session states whose
expires_at has passed are deleted, in batches. Readers already hide them (session_state.py);
this reclaims the nodes. A state without expires_at never matches."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from app.domain.agents.session_state import STATE
from app.domain.memory.sweep_steps import StepResult, purge_in_batches
from app.graph.change_feed import Changed
from app.graph.executor import GraphExecutor, Record
from app.model.enums import ChangeAction

KIND = "agent_session_states"  # the step's count in the sweep's `expired` counts
# Seeks index agent_session_state_expires (migration 0033).
PURGE_EXPIRED_STATES = """
MATCH (st:AgentSessionState)
WHERE st.expires_at <= $now AND ($client_id IS NULL OR st.client_id = $client_id)
WITH st LIMIT $batch
OPTIONAL MATCH (a:Agent)-[:HAS_SESSION_STATE]->(st)
WITH st, st.client_id AS client_id, {id: st.id, agent_id: a.id} AS state
DETACH DELETE st
RETURN client_id, count(*) AS purged, collect(state) AS states
"""


@dataclass
class SessionStateExpiry:
    """A sweep step: one client's expired agent session states deleted, or every client's."""

    graph: GraphExecutor
    batch: int = 500

    async def __call__(self, client_id: str | None) -> StepResult:
        params = {"now": datetime.now(UTC), "client_id": client_id}
        return await purge_in_batches(
            self.graph, PURGE_EXPIRED_STATES, params, kind=KIND, batch=self.batch, changed=_purged
        )


def _purged(rows: list[Record]) -> list[Changed]:
    """Each state a batch deleted, under its agent."""
    return [
        Changed(row["client_id"], STATE, state["id"], ChangeAction.DELETED, state["agent_id"])
        for row in rows
        for state in row["states"]
    ]
