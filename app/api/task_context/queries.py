"""The bounded-context query (seed 000, 3.4)."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.resolve import run
from app.api.task_context.convert import task_context
from app.api.task_context.inputs import TaskContextInput
from app.api.task_context.outputs import TaskContext
from app.domain.task_context import build_context


@strawberry.type
class TaskContextQueries:
    @strawberry.field(
        description="What an agent should read for a task, within a token budget: the plan "
        "summary, its constraints snapshot references, its 3-8 most relevant nodes, the "
        "relevant active lessons (by relevance x effective confidence), the relevant thread "
        "summaries (raw events only when asked for), and usedIds to store as the episode's "
        "retrievalRefs. Another client's planId or threadIds are NOT_FOUND."
    )
    async def context(self, info: Info, input: TaskContextInput) -> TaskContext:
        found = await run(
            info,
            build_context,
            request=input.to_request(),
            retire_threshold=info.context.services.settings.lesson_retire_threshold,
        )
        return task_context(found)
