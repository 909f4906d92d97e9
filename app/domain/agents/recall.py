"""Recall for an agent, the seed 001 memory workflow's step 4: search the agent's memories
(the vector index first: search_memories, access-logged), hydrate the records (content read
from object storage where it lives there), and merge the agent's recent action results
(completed cycles) into one ranked answer (recall_rules.fuse).

The agent is looked up first: a name the caller's client does not have (another client's
agent included) is NOT_FOUND before anything is searched. Reads are not bound to the key's
agent (the agents of one client share their memory, app/domain/memory/owner.py)."""

from __future__ import annotations

from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.agents import recall_rules as rules
from app.domain.agents.cycles import cycle_record
from app.domain.agents.repository import agent_name_for
from app.domain.kernel.errors import NotFound
from app.domain.kernel.principal import Principal
from app.domain.memory import hydrate_all, search_memories
from app.graph.executor import GraphExecutor
from app.model.enums import AgentCycleStatus
from app.retrieval.embedder import Embedder
from app.retrieval.search import SearchMode

FINISHED = [AgentCycleStatus.SUCCEEDED.value, AgentCycleStatus.FAILED.value]
RECENT_RESULTS = """
MATCH (a:Agent {client_id: $client_id, name: $agent_name})
RETURN COLLECT {
  MATCH (a)-[:HAS_CYCLE]->(c:AgentCycle {client_id: $client_id})
  WHERE c.status IN $finished
  WITH c ORDER BY c.finished_at DESC, c.sequence DESC LIMIT $limit
  RETURN c {.*}
} AS cycles
"""


async def recall_for_agent(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    embedder: Embedder,
    *,
    principal: Principal,
    agent_name: str | None,
    fields: dict[str, Any],
) -> dict[str, Any]:
    """{agent_name, text, items, memory_count, result_count}: the agent's (the key's agent by
    default) k best memories for `text` and its `recent_results` newest action results, as
    one list best first. `fields`: text, mode, k, recent_results, where (memory filters)."""
    request = rules.check_request(fields)
    name = agent_name_for(principal, agent_name)
    where = rules.agent_filter(fields.get("where"), name)
    params = {
        "client_id": principal.client_id,
        "agent_name": name,
        "finished": FINISHED,
        "limit": request["recent_results"],
    }
    rows = await graph.read(RECENT_RESULTS, params)
    if not rows:
        raise NotFound(f"no agent named {name!r}", agent_name=name)
    cycles = [cycle_record(cycle) for cycle in rows[0]["cycles"]]
    mode = fields.get("mode") or SearchMode.HYBRID
    text, k = request["text"], request["k"]
    hits = await search_memories(
        graph, embedder, principal=principal, text=text, mode=mode, k=k, where=where
    )
    records = await hydrate_all(artifacts, principal, [hit.record for hit in hits])
    items = rules.fuse(
        [(record, hit.score, hit.why) for record, hit in zip(records, hits, strict=True)],
        rules.rank_results(cycles, text),
    )
    return {
        "agent_name": name,
        "text": text,
        "items": items,
        "memory_count": len(hits),
        "result_count": len(cycles),
    }
