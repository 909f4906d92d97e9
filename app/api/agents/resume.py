"""agentResume: the agent (with its state) and its latest cycle in one Cypher query, the
nested selections of both compiled into that same query."""

from __future__ import annotations

from typing import Any

from app.api.context import Info
from app.api.read.selection import Field, selected, under
from app.api.types.base import GRAPHQL_NAMES
from app.domain.kernel.errors import NotFound
from app.graph.compiler import Compiler


def resume_query(compiler: Compiler, agent: list[Field], cycle: list[Field]) -> str:
    # The cycle's variable is `c`; the compiler names its own variables n0, n1, ...
    agent_projection = compiler.projection("Agent", "n0", agent)
    cycle_projection = compiler.projection("AgentCycle", "c", cycle)
    return f"""
MATCH (n0:Agent {{client_id: $client_id, name: $agent_name}})
OPTIONAL CALL (n0) {{
  MATCH (n0)-[:HAS_CYCLE]->(c:AgentCycle {{client_id: $client_id}})
  RETURN c ORDER BY c.sequence DESC LIMIT 1
}}
RETURN {agent_projection} AS agent, n0.state AS state,
       coalesce(n0.state_version, 0) AS state_version,
       COUNT {{ (n0)-[:HAS_CYCLE]->(:AgentCycle) }} AS cycle_count,
       CASE WHEN c IS NULL THEN null ELSE {cycle_projection} END AS cycle
"""


async def resume_row(info: Info, agent_name: str) -> dict[str, Any]:
    principal = info.context.caller()
    compiler = Compiler(client_id=principal.client_id, names=GRAPHQL_NAMES)
    fields = selected(info)
    query = resume_query(compiler, under(fields, "agent"), under(fields, "latestCycle"))
    rows = await info.context.graph.read_plain(query, compiler.params | {"agent_name": agent_name})
    if not rows:
        raise NotFound(f"no agent named {agent_name!r}", agent_name=agent_name)
    return rows[0]
