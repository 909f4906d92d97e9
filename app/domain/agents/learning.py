"""Learning from feedback (seed 002): each feedback event is kept raw and, in the same
transaction, folded into the AgentPerformance counters of its (agent, task type).

The performance node is MERGEd on its (client_id, agent_name, task_type) uniqueness constraint
and write-locked before its counters are read, so concurrent feedback never loses an update:
each transaction reads the counters the previous one committed.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain.agents import learning_rules as rules
from app.domain.agents.repository import (
    AGENT_ROW,
    acting_agent_name,
    agent_name_for,
    note_new_agent,
)
from app.domain.kernel.ids import new_id
from app.domain.kernel.pagination import check_page_size, keyset_params
from app.domain.kernel.principal import Principal
from app.graph.change_feed import note_change
from app.graph.executor import GraphExecutor, Tx
from app.graph.fragments import keyset_page, lock, merge_agent
from app.graph.values import plain
from app.model.enums import ChangeAction

LOCK_PERFORMANCE = f"""
{merge_agent()}
MERGE (p:AgentPerformance {{client_id: $client_id, agent_name: $agent_name,
                           task_type: $task_type}})
ON CREATE SET p.id = $performance_id, p.created_at = $now, p.updated_at = $now, p.total = 0,
              p.successes = 0, p.rating_sum = 0.0, p.rating_count = 0, p.patterns = '{{}}'
{lock("p")}
RETURN p {{.*}} AS performance, p.id = $performance_id AS created, {AGENT_ROW}
"""
LEARN = """
MATCH (p:AgentPerformance {id: $performance_id, client_id: $client_id})
CREATE (p)-[:LEARNED_FROM]->(f:FeedbackEvent)
SET f = $event, p += $changes
RETURN p {.*} AS performance, f {.*} AS event
"""
PERFORMANCES = """
MATCH (p:AgentPerformance {client_id: $client_id, agent_name: $agent_name})
WHERE $task_type IS NULL OR p.task_type = $task_type
RETURN p {.*} AS performance ORDER BY p.task_type
"""
HISTORY = keyset_page(
    "MATCH (f:FeedbackEvent {client_id: $client_id, agent_name: $agent_name})",
    "$task_type IS NULL OR f.task_type = $task_type",
    "f",
    "f {.*}",
    "rows",
)


async def learn_from_feedback(
    graph: GraphExecutor,
    *,
    principal: Principal,
    agent_name: str | None,
    fields: dict[str, Any],
) -> dict[str, Any]:
    """Keep the feedback event and update the agent's counters for its task type, atomically.
    Returns {"event": ..., "performance": ...}."""
    principal.require_writer()
    name = acting_agent_name(principal, agent_name)
    event = rules.check_feedback(fields)
    now = datetime.now(UTC)
    scope = {"client_id": principal.client_id, "agent_name": name, "now": now}

    async def work(tx: Tx) -> dict[str, Any]:
        params = scope | {
            "task_type": event["task_type"],
            "agent_id": new_id(),
            "performance_id": new_id(),
        }
        locked = (await tx.run(LOCK_PERFORMANCE, params))[0]
        performance = dict(plain(locked["performance"]))
        changes = rules.learned(performance, event) | {"updated_at": now}
        props = event | {
            "id": new_id(),
            "client_id": principal.client_id,
            "agent_name": name,
            "created_at": now,
            "updated_at": now,
        }
        learn = {"performance_id": performance["id"], "event": props, "changes": changes}
        row = (await tx.run(LEARN, scope | learn))[0]
        _note_learned(principal.client_id, locked, props["id"])
        return {"event": dict(plain(row["event"])), "performance": dict(plain(row["performance"]))}

    return await graph.in_transaction(work)


def _note_learned(client_id: str, locked: dict[str, Any], event_id: str) -> None:
    """The feedback event and the counters it moved (`locked`: LOCK_PERFORMANCE's row), under
    their agent."""
    agent_id = locked["agent_id"]
    note_new_agent(client_id, locked)
    note_change(client_id, "FeedbackEvent", event_id, ChangeAction.CREATED, parent_id=agent_id)
    action = ChangeAction.CREATED if locked["created"] else ChangeAction.UPDATED
    performance_id = locked["performance"]["id"]
    note_change(client_id, "AgentPerformance", performance_id, action, parent_id=agent_id)


async def agent_patterns(
    graph: GraphExecutor, *, principal: Principal, agent_name: str | None, task_type: str | None
) -> dict[str, Any]:
    """Seed 002's agent patterns for one task type, or summed over all of the agent's task
    types; an agent without feedback (or of another client) has zero tasks."""
    name = agent_name_for(principal, agent_name)
    task = None if task_type is None else rules.check_task_type(task_type)
    params = {"client_id": principal.client_id, "agent_name": name, "task_type": task}
    rows = await graph.read(PERFORMANCES, params)
    performances = [dict(plain(row["performance"])) for row in rows]
    return rules.agent_patterns(performances, agent_name=name, task_type=task)


async def feedback_history(
    graph: GraphExecutor,
    *,
    principal: Principal,
    agent_name: str | None,
    task_type: str | None,
    first: int,
    after: str | None,
) -> tuple[list[dict[str, Any]], int]:
    """The raw feedback events, newest first: one page (plus one row telling whether another
    page follows) and the total."""
    params = {
        "client_id": principal.client_id,
        "agent_name": agent_name_for(principal, agent_name),
        "task_type": None if task_type is None else rules.check_task_type(task_type),
        "limit": check_page_size(first) + 1,
    } | keyset_params(after)
    row = (await graph.read(HISTORY, params))[0]
    return [dict(plain(r)) for r in row["rows"]], int(row["total"])
