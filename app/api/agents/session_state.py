"""Agent state per session (seed 004): thin resolvers over app/domain/agents/session_state.py.
The agent's global state stays saveAgentState / Agent.state; Agent.sessionStates and
MemorySession.agentStates list the per-session ones beside it."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from app.api.context import Info
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.read.nodes import load_written
from app.api.resolve import run, write
from app.api.types.session_state import AgentSessionState
from app.domain import agents


@strawberry.type
class SessionStateMutations:
    @strawberry.mutation(
        description="Replace an agent's state (a JSON object) in one session of the caller's "
        "(the API key's agent by default); its version goes up by one. expectedVersion: "
        "CONFLICT unless the state is still at that version (0: none, or it expired). "
        "expiresAt or ttlSeconds: when it expires (default: never); an expired state reads as "
        "none and the sweeper purges it."
    )
    @idempotent
    async def save_agent_session_state(
        self,
        info: Info,
        session_id: strawberry.ID,
        state: JSON,
        agent_name: str | None = None,
        expected_version: int | None = None,
        expires_at: datetime | None = None,
        ttl_seconds: float | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> AgentSessionState:
        return await write(
            info,
            agents.save_agent_session_state,
            AgentSessionState,
            session_id=session_id,
            state=state,
            agent_name=agent_name,
            expected_version=expected_version,
            expires_at=expires_at,
            ttl_seconds=ttl_seconds,
        )

    @strawberry.mutation(
        description="Delete an agent's state in one session (NOT_FOUND when it has none); "
        "true once deleted."
    )
    async def clear_agent_session_state(
        self, info: Info, session_id: strawberry.ID, agent_name: str | None = None
    ) -> bool:
        arguments = {"session_id": session_id, "agent_name": agent_name}
        return bool(await run(info, agents.clear_agent_session_state, **arguments))


@strawberry.type
class SessionStateQueries:
    @strawberry.field(
        description="An agent's live state in one session (the API key's agent by default); "
        "null when it has none or it expired. Its global state: agent(...) { state }."
    )
    async def agent_session_state(
        self, info: Info, session_id: strawberry.ID, agent_name: str | None = None
    ) -> AgentSessionState | None:
        arguments = {"session_id": session_id, "agent_name": agent_name}
        found = await run(info, agents.agent_session_state, **arguments)
        return None if found is None else await load_written(info, AgentSessionState, found)
