"""Which agent a memory record belongs to, for agent keys (Principal.bound_agent).

A record belongs to the agent of its namespace, else to its source agent; a record with neither
belongs to no agent. An agent key may change (replace, forget, attach to) only records of its
own agent or of none; reviewers and admins ($bound_agent null) may change any. Reads are not
restricted: the agents of one client share their memory.
"""

from __future__ import annotations

from typing import Any

from app.domain.kernel.principal import Principal
from app.domain.memory.locate import NOT_EXPIRED, Locator
from app.graph.executor import GraphExecutor

CHANGE = "change a memory record of agent"


def owner(var: str) -> str:
    return f"coalesce({var}.agent, {var}.source_agent)"


def owned(var: str) -> str:
    """A Cypher condition: the caller ($bound_agent) may change the record in `var`."""
    return f"($bound_agent IS NULL OR {owner(var)} IS NULL OR {owner(var)} = $bound_agent)"


OWNER_OF = {
    by: f"{match} WHERE {NOT_EXPIRED} RETURN {owner('r')} AS owner"
    for by, match in Locator.MATCHES.items()
}


def owner_params(principal: Principal) -> dict[str, Any]:
    return {"bound_agent": principal.bound_agent}


async def refuse_foreign(
    graph: GraphExecutor, principal: Principal, by: str, params: dict[str, Any]
) -> None:
    """FORBIDDEN if the record a write did not match exists but belongs to another agent (the
    caller then answers NOT_FOUND): one read, only on that path and only for agent keys."""
    if principal.bound_agent is None:
        return
    rows = await graph.read(OWNER_OF[by], params)
    if rows:
        principal.require_agent(rows[0]["owner"], what=CHANGE)
