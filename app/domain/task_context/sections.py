"""The sections of a bounded context (seed 000, 3.4 and 5.4), each found and ranked on its own
(relevance: app/domain/task_context/items.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain.kernel.errors import NotFound
from app.domain.kernel.field_rules import decoded
from app.domain.lessons import effective_confidence, is_retired
from app.domain.task_context import cypher as q
from app.domain.task_context.items import ContextItem, Task, cosine_of, pick, relevant
from app.graph.values import plain
from app.retrieval.search import SearchFilters

MIN_NODES, MAX_NODES = 3, 8
LESSON_CANDIDATES, MAX_LESSONS = 20, 8
THREAD_CANDIDATES, MAX_THREADS = 10, 5
MAX_EPISODES = 3
# Seed 5.4 summarises every 6 events: the latest 6 are what no summary covers yet.
EVENTS_PER_THREAD = 6

NODE_FIELDS = ("id", "node_type", "title", "status", "summary", "quality_score")
THREAD_FIELDS = (
    "id",
    "platform",
    "thread_type",
    "status",
    "handoff_state",
    "summary_short",
    "open_questions",
    "last_event_at",
)
EPISODE_FIELDS = ("id", "agent_name", "task_class", "status", "output_summary", "created_at")


async def plan_and_constraints(task: Task, plan_id: str) -> list[ContextItem]:
    """The plan summary and its constraints snapshot references (never the knowledge base)."""
    params = {"plan_id": plan_id, "client_id": task.principal.client_id}
    rows = await task.graph.read(q.PLAN, params)
    if not rows:
        raise NotFound(f"no plan with id {plan_id}", id=plan_id)
    row = plain(rows[0])
    plan = ContextItem("plan", dict(row["plan"]), why=["the plan of the task"])
    snapshot = row["snapshot"]
    if snapshot is None:
        return [plan]
    return [plan, ContextItem("constraints", dict(snapshot), why=["the plan's constraints_ref"])]


async def plan_nodes(task: Task, plan_id: str) -> list[ContextItem]:
    """3-8 nodes of the plan: the best matches, the 4th to 8th only when relevant; when search
    finds fewer than 3 (e.g. nodes not indexed yet), the best-quality others fill up to 3."""
    hits = await task.search("PlanNode", MAX_NODES, SearchFilters(plan_id=plan_id))
    kept = [hit for rank, hit in enumerate(hits) if rank < MIN_NODES or relevant(hit)]
    items = [
        ContextItem("plan_node", pick(hit.record, NODE_FIELDS), hit.score, hit.why) for hit in kept
    ]
    if len(items) < MIN_NODES:
        params = {
            "plan_id": plan_id,
            "client_id": task.principal.client_id,
            "exclude": [item.id for item in items],
            "limit": MIN_NODES - len(items),
        }
        rows = await task.graph.read(q.PLAN_NODES_FILL, params)
        why = ["filled by quality: fewer than 3 nodes matched the task"]
        items += [ContextItem("plan_node", dict(plain(r["node"])), None, why) for r in rows]
    return items


async def lessons(task: Task, *, retire_threshold: float) -> list[ContextItem]:
    """Active relevant lessons by relevance x effective confidence (decayed at read time)."""
    now = datetime.now(UTC)
    scored: list[ContextItem] = []
    for hit in await task.search("Lesson", LESSON_CANDIDATES):
        lesson = hit.record
        effective = effective_confidence(
            confidence=lesson["confidence"],
            half_life_days=lesson["decay_half_life_days"],
            last_evidence_at=lesson["last_evidence_at"],
            now=now,
        )
        active = not lesson["retired"] and lesson.get("valid_to") is None
        if not active or not relevant(hit):
            continue
        if is_retired(effective, threshold=retire_threshold):
            continue
        content = pick(lesson, ("id", "scope", "lesson_type", "statement"))
        content["effective_confidence"] = round(effective, 3)
        why = [*hit.why, f"effective confidence {effective:.2f}"]
        scored.append(ContextItem("lesson", content, cosine_of(hit) * effective, why))
    scored.sort(key=lambda item: -(item.score or 0.0))
    return scored[:MAX_LESSONS]


def _thread_item(thread: dict[str, Any], score: float | None, why: list[str]) -> ContextItem:
    content = decoded(pick(thread, THREAD_FIELDS), ("open_questions",))
    return ContextItem("thread", content, score, why)


async def threads(task: Task, thread_ids: list[str] | None) -> list[ContextItem]:
    """The given threads (each must be the caller's), else the threads whose summaries match."""
    if thread_ids is None:
        hits = await task.search("ConversationThread", THREAD_CANDIDATES)
        found = [_thread_item(h.record, h.score, h.why) for h in hits if relevant(h)]
        return found[:MAX_THREADS]
    params = {"thread_ids": thread_ids, "client_id": task.principal.client_id}
    rows = [plain(row) for row in await task.graph.read(q.THREADS, params)]
    known = {row["thread"]["id"] for row in rows}
    for thread_id in thread_ids:
        if thread_id not in known:
            raise NotFound(f"no conversation thread with id {thread_id}", id=thread_id)
    return [_thread_item(row["thread"], None, ["thread given"]) for row in rows]


async def episodes(task: Task, agent: str) -> list[ContextItem]:
    """The agent's past episodes whose output summaries match the task."""
    hits = await task.search("AgentEpisode", MAX_EPISODES, SearchFilters(agent=agent))
    return [
        ContextItem("episode", pick(hit.record, EPISODE_FIELDS), hit.score, hit.why)
        for hit in hits
        if relevant(hit)
    ]


async def raw_events(task: Task, thread_ids: list[str]) -> list[ContextItem]:
    """The latest events of the threads in the context (summaries are the default; seed 5.4)."""
    if not thread_ids:
        return []
    params = {
        "thread_ids": thread_ids,
        "client_id": task.principal.client_id,
        "per_thread": EVENTS_PER_THREAD,
    }
    rows = await task.graph.read(q.RECENT_EVENTS, params)
    why = [f"one of the latest {EVENTS_PER_THREAD} events of a thread in the context"]
    return [ContextItem("event", dict(plain(row["event"])), None, why) for row in rows]
