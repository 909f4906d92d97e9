"""Task context (seed 000, 3.4): the bounded context an agent reads for a task, packed by
priority within a token budget from plans, lessons, thread summaries and past episodes. It
reads several aggregates, so it sits beside them rather than in retrieval (which knows none)."""

from app.domain.task_context.assemble import ContextRequest, TaskContext, build_context

__all__ = ["ContextRequest", "TaskContext", "build_context"]
