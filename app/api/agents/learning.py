"""Learning from feedback: thin resolvers over app/domain/agents/learning."""

from __future__ import annotations

import dataclasses
from typing import Any

import strawberry

from app.api.agents import outputs as o
from app.api.agents.inputs import FeedbackInput
from app.api.context import Info
from app.api.idempotent import IdempotencyKey, create_once, idempotent
from app.api.types.agent_memory import AgentPerformance, FeedbackEvent
from app.api.types.connection import Connection, connection
from app.domain import agents
from app.domain.agents import learning_rules
from app.graph.executor import GraphExecutor


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
        async def create(graph: GraphExecutor) -> dict[str, Any]:
            fields = dataclasses.asdict(input)  # anew on every run: it may be retried
            return await agents.learn_from_feedback(
                graph,
                principal=info.context.caller(),
                agent_name=fields.pop("agent_name"),
                fields=fields,
            )

        learned = await create_once(info, create)
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
        found = await agents.agent_patterns(
            info.context.graph,
            principal=info.context.caller(),
            agent_name=agent_name,
            task_type=task_type,
        )
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
        rows, total = await agents.feedback_history(
            info.context.graph,
            principal=info.context.caller(),
            agent_name=agent_name,
            task_type=task_type,
            first=first,
            after=after,
        )
        nodes = [FeedbackEvent.from_row(row) for row in rows]
        return connection(nodes, rows, total=total, first=first)  # type: ignore[no-any-return]
