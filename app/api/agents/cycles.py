"""Agent cycles and resumable state: thin resolvers over app/domain/agents
(cycles, state); agentResume is one Cypher query (resume.py)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import strawberry
from strawberry.scalars import JSON

from app.api.agents.inputs import CompleteCycleInput, RecordCycleInput
from app.api.agents.resume import resume_row
from app.api.context import Info
from app.api.idempotent import IdempotencyKey, create_once, idempotent
from app.api.read.nodes import load_written
from app.api.types.agent_memory import AgentCycle
from app.api.types.agents import Agent
from app.domain import agents
from app.domain.agents import agent_name_for
from app.graph.executor import GraphExecutor


@strawberry.type(
    description="Everything an agent needs to resume: its state and its latest cycle, read in "
    "one query."
)
class AgentResume:
    agent: Agent
    state: JSON | None
    state_version: int = strawberry.field(description="0 while no state was saved.")
    cycle_count: int
    latest_cycle: AgentCycle | None = strawberry.field(description="The highest sequence.")


@strawberry.type
class CycleMutations:
    @strawberry.mutation(
        description="Record a cycle's action proposal (status PROPOSED), numbered after the "
        "agent's last cycle, linked (PRODUCED) to memory records it produced."
    )
    @idempotent
    async def record_cycle(
        self, info: Info, input: RecordCycleInput, idempotency_key: IdempotencyKey = None
    ) -> AgentCycle:
        async def create(graph: GraphExecutor) -> dict[str, Any]:
            fields = dataclasses.asdict(input)  # anew on every run: it may be retried
            return await agents.record_cycle(
                graph,
                principal=info.context.caller(),
                agent_name=fields.pop("agent_name"),
                memory_ids=fields.pop("memory_ids"),
                fields=fields,
            )

        record = await create_once(info, create)
        return await load_written(info, "AgentCycle", record)  # type: ignore[no-any-return]

    @strawberry.mutation(
        description="Complete a PROPOSED cycle with its action result (SUCCEEDED or FAILED); "
        "then it is final (INVALID_TRANSITION)."
    )
    async def complete_cycle(
        self, info: Info, id: strawberry.ID, input: CompleteCycleInput
    ) -> AgentCycle:
        fields = dataclasses.asdict(input)
        record = await agents.complete_cycle(
            info.context.graph,
            principal=info.context.caller(),
            cycle_id=id,
            memory_ids=fields.pop("memory_ids"),
            fields=fields,
        )
        return await load_written(info, "AgentCycle", record)  # type: ignore[no-any-return]

    @strawberry.mutation(
        description="Replace the agent's state (a JSON object); its stateVersion goes up by "
        "one. With expectedVersion (0: none saved yet) the save is refused with CONFLICT when "
        "another save came first."
    )
    @idempotent
    async def save_agent_state(
        self,
        info: Info,
        state: JSON,
        agent_name: str | None = None,
        expected_version: int | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> Agent:
        record = await create_once(
            info,
            lambda graph: agents.save_agent_state(
                graph,
                principal=info.context.caller(),
                agent_name=agent_name,
                state=state,
                expected_version=expected_version,
            ),
        )
        return await load_written(info, "Agent", record)  # type: ignore[no-any-return]


@strawberry.type
class CycleQueries:
    @strawberry.field(
        description="The agent's state and latest cycle (the API key's agent by default), in "
        "one Cypher query whatever is selected under them."
    )
    async def agent_resume(self, info: Info, agent_name: str | None = None) -> AgentResume:
        name = agent_name_for(info.context.caller(), agent_name)
        row = await resume_row(info, name)
        state = row["state"]
        return AgentResume(
            agent=Agent.from_row(row["agent"]),
            state=json.loads(state) if isinstance(state, str) else state,
            state_version=int(row["state_version"]),
            cycle_count=int(row["cycle_count"]),
            latest_cycle=AgentCycle.from_row(row["cycle"]) if row["cycle"] else None,
        )
