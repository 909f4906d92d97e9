"""The context query's input, turned into the retrieval layer's request."""

from __future__ import annotations

import strawberry

from app.domain.task_context import ContextRequest


@strawberry.input(
    description="A task to assemble a bounded context for (seed 000, 3.4). planId adds the "
    "plan summary, its constraints snapshot references and its 3-8 most relevant nodes; "
    "threadIds replaces the thread search with those threads; agent adds that agent's "
    "relevant past episodes."
)
class TaskContextInput:
    text: str = strawberry.field(description="The task, 1-2000 characters.")
    plan_id: strawberry.ID | None = None
    thread_ids: list[strawberry.ID] | None = None
    agent: str | None = None
    token_budget: int = strawberry.field(
        default=2000,
        description="Tokens (characters / 4 of each item's content) the context may use.",
    )
    include_raw_events: bool = strawberry.field(
        default=False,
        description="Also the latest events of the threads in the context (summaries are the "
        "default).",
    )

    def to_request(self) -> ContextRequest:
        return ContextRequest(
            text=self.text,
            plan_id=self.plan_id,
            thread_ids=None if self.thread_ids is None else [str(i) for i in self.thread_ids],
            agent=self.agent,
            token_budget=self.token_budget,
            include_raw_events=self.include_raw_events,
        )
