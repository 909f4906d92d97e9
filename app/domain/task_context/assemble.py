"""Bounded context for an agent's episode (seed 000, 0.1 and 3.4): what to read for a task,
within a token budget, with the ids of everything used (an episode's retrieval_refs).

Sections are packed by priority, greedily (an item that does not fit is skipped and counted;
smaller ones after it may still fit): the plan summary, its constraints snapshot references,
the plan nodes (best match first), the lessons, the thread summaries, the agent's past
episodes, and raw events (only when asked for, of the threads that made it in). Tokens are
estimated as characters / 4 of each item's content (app/retrieval/budget.py).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from app.domain.agents import check_agent_name
from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import check_ids
from app.domain.kernel.ids import check_id
from app.domain.kernel.principal import Principal
from app.domain.task_context import sections
from app.domain.task_context.items import ContextItem, Task, TaskEmbedder
from app.graph.executor import GraphExecutor
from app.retrieval.budget import MAX_BUDGET, TokenBudget
from app.retrieval.embedder import Embedder
from app.retrieval.search import MAX_TEXT


@dataclass(frozen=True)
class ContextRequest:
    text: str
    plan_id: str | None = None
    thread_ids: list[str] | None = None
    agent: str | None = None
    token_budget: int = 2000
    include_raw_events: bool = False


@dataclass
class TaskContext:
    token_budget: int
    items: list[ContextItem] = field(default_factory=list)
    tokens_used: int = 0
    omitted: int = 0

    def section(self, name: str) -> list[ContextItem]:
        return [item for item in self.items if item.section == name]

    @property
    def used_ids(self) -> list[str]:
        return [item.id for item in self.items]


def check_request(request: ContextRequest) -> ContextRequest:
    """The request with canonical ids; a VALIDATION error names the first bad field."""
    if not request.text.strip() or len(request.text) > MAX_TEXT:
        raise ValidationFailed(f"text must be 1-{MAX_TEXT} characters", field="text")
    budget = request.token_budget
    if isinstance(budget, bool) or not 1 <= budget <= MAX_BUDGET:
        raise ValidationFailed(f"tokenBudget must be 1-{MAX_BUDGET}", field="tokenBudget")
    plan_id = None if request.plan_id is None else check_id(request.plan_id, field="planId")
    thread_ids = request.thread_ids
    if thread_ids is not None:
        thread_ids = check_ids(thread_ids, field="threadIds", minimum=1)
    agent = None if request.agent is None else check_agent_name(request.agent)
    return ContextRequest(
        request.text, plan_id, thread_ids, agent, budget, request.include_raw_events
    )


async def _no_items() -> list[ContextItem]:
    return []


async def _candidates(
    task: Task, request: ContextRequest, retire_threshold: float
) -> list[ContextItem]:
    """Every section's candidates, found concurrently, in packing order."""
    plan_id, agent = request.plan_id, request.agent
    plan = _no_items() if plan_id is None else sections.plan_and_constraints(task, plan_id)
    nodes = _no_items() if plan_id is None else sections.plan_nodes(task, plan_id)
    episodes = _no_items() if agent is None else sections.episodes(task, agent)
    found = await asyncio.gather(
        plan,
        nodes,
        sections.lessons(task, retire_threshold=retire_threshold),
        sections.threads(task, request.thread_ids),
        episodes,
    )
    return [item for items in found for item in items]


async def build_context(
    graph: GraphExecutor,
    embedder: Embedder,
    *,
    principal: Principal,
    request: ContextRequest,
    retire_threshold: float,
) -> TaskContext:
    request = check_request(request)
    task = Task(graph, TaskEmbedder(embedder), principal, request.text)
    await task.embedder.query_vector(request.text, scope=principal.client_id)
    budget = TokenBudget(request.token_budget)
    packed = budget.pack(
        await _candidates(task, request, retire_threshold), lambda item: item.tokens
    )
    if request.include_raw_events:
        threads = [item.id for item in packed if item.section == "thread"]
        packed += budget.pack(await sections.raw_events(task, threads), lambda item: item.tokens)
    return TaskContext(request.token_budget, packed, budget.used, budget.omitted)
