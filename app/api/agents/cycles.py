"""Agent cycles and resumable state: thin resolvers over app/domain/agents
(cycles, state); agentResume is one Cypher query (resume.py)."""

from __future__ import annotations

import json

import strawberry
from strawberry.scalars import JSON

from app.api.agents.inputs import CompleteCycleInput, RecordCycleInput
from app.api.agents.resume import resume_row
from app.api.context import Info
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.inputs import input_arguments
from app.api.record_mutations import creates
from app.api.resolve import write
from app.api.types.agent_memory import AgentCycle
from app.api.types.agents import Agent
from app.domain import agents
from app.domain.agents import agent_name_for


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
    record_cycle = creates(
        agents.record_cycle,
        AgentCycle,
        RecordCycleInput,
        "Record a cycle's action proposal (status PROPOSED), numbered after the "
        "agent's last cycle, linked (PRODUCED) to memory records it produced, cueing paths of "
        "a workspace (WORKS_IN).",
        apart=("agent_name", "memory_ids", "workspace_id", "workspace_cues"),
    )

    @strawberry.mutation(
        description="Complete a PROPOSED cycle with its action result (SUCCEEDED or FAILED); "
        "then it is final (INVALID_TRANSITION)."
    )
    async def complete_cycle(
        self, info: Info, id: strawberry.ID, input: CompleteCycleInput
    ) -> AgentCycle:
        arguments = input_arguments(input, "memory_ids", "workspace_file_ids", "artifact_ids")
        return await write(info, agents.complete_cycle, AgentCycle, cycle_id=id, **arguments)

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
        return await write(
            info,
            agents.save_agent_state,
            Agent,
            agent_name=agent_name,
            state=state,
            expected_version=expected_version,
        )


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
