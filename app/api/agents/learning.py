"""Learning from feedback: thin resolvers over app/domain/agents/learning."""

from __future__ import annotations

import strawberry

from app.api.agents import outputs as o
from app.api.agents.inputs import FeedbackInput
from app.api.context import Info
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.inputs import input_arguments
from app.api.resolve import run
from app.api.types.agent_memory import AgentPerformance, FeedbackEvent
from app.api.types.connection import Connection, connection
from app.domain import agents
from app.domain.agents import learning_rules


@strawberry.type
class LearningMutations:
    @strawberry.mutation(
        description="Keep a feedback event and, in the same transaction, update the agent's "
        "counters for its task type (tasks, successes, ratings, per-pattern stats); "
        "concurrent feedback never loses an update."
    )
    @idempotent
    async def learn_from_feedback(
        self, info: Info, input: FeedbackInput, idempotency_key: IdempotencyKey = None
    ) -> o.FeedbackLearned:
        arguments = input_arguments(input, "agent_name")
        learned = await run(info, agents.learn_from_feedback, **arguments)
        performance = learned["performance"]
        patterns = learning_rules.agent_patterns(
            [performance],
            agent_name=performance["agent_name"],
            task_type=performance["task_type"],
        )
        return o.FeedbackLearned(
            event=FeedbackEvent.from_row(learned["event"]),
            performance=AgentPerformance.from_row(performance),
            patterns=o.agent_patterns(patterns),
        )


@strawberry.type
class LearningQueries:
    @strawberry.field(
        description="What the agent (the API key's agent by default) learned: total and "
        "successful tasks, success rate, average rating and per-pattern stats, for one task "
        "type or over all of them."
    )
    async def agent_patterns(
        self, info: Info, agent_name: str | None = None, task_type: str | None = None
    ) -> o.AgentPatterns:
        found = await run(info, agents.agent_patterns, agent_name=agent_name, task_type=task_type)
        return o.agent_patterns(found)

    @strawberry.field(
        description="The raw feedback events of an agent (optionally of one task type), newest "
        "first, cursor-paginated."
    )
    async def feedback_history(
        self,
        info: Info,
        agent_name: str | None = None,
        task_type: str | None = None,
        first: int = 20,
        after: str | None = None,
    ) -> Connection[FeedbackEvent]:
        rows, total = await run(
            info,
            agents.feedback_history,
            agent_name=agent_name,
            task_type=task_type,
            first=first,
            after=after,
        )
        nodes = [FeedbackEvent.from_row(row) for row in rows]
        return connection(nodes, rows, total=total, first=first)
