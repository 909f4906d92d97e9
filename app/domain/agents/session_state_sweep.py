"""A step of the memory sweeper (app/domain/memory/sweep_steps.py): agent session states whose
expires_at has passed are deleted, in batches. Readers already hide them (session_state.py);
this reclaims the nodes. A state without expires_at never matches."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from app.domain.memory.sweep_steps import StepResult, purge_in_batches
from app.graph.executor import GraphExecutor

KIND = "agent_session_states"  # the step's count in the sweep's `expired` counts
# Seeks index agent_session_state_expires (migration 0033).
PURGE_EXPIRED_STATES = """
MATCH (st:AgentSessionState)
WHERE st.expires_at <= $now AND ($client_id IS NULL OR st.client_id = $client_id)
WITH st LIMIT $batch
WITH st, st.client_id AS client_id
DETACH DELETE st
RETURN client_id, count(*) AS purged
"""


@dataclass
class SessionStateExpiry:
    """A sweep step: one client's expired agent session states deleted, or every client's."""

    graph: GraphExecutor
    batch: int = 500

    async def __call__(self, client_id: str | None) -> StepResult:
        params = {"now": datetime.now(UTC), "client_id": client_id}
        return await purge_in_batches(
            self.graph, PURGE_EXPIRED_STATES, params, kind=KIND, batch=self.batch
        )
