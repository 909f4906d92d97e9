"""Another key of a test client, and a snapshot of everything a client has in the graph: shared
by the tests that compare a client's state before and after a refused or replayed write."""

from __future__ import annotations

import asyncio
from typing import Any

from app.cli.admin import create_key
from app.model.enums import Role
from app.settings import Settings
from tests.integration.asset_helpers import own_state
from tests.integration.conftest import Caller

# Every node of the client and every relationship from one, with their properties, but not the
# access log or what the embedding worker adds (both are written in the background).
STATE = """
MATCH (n {client_id: $c}) WHERE NOT n:AccessLogEntry
OPTIONAL MATCH (n)-[r]->(m)
WITH n, r, m ORDER BY type(r), m.id, r.role
WITH n, collect([type(r), m.id, properties(r)]) AS rels
RETURN labels(n) AS labels, properties(n) AS props, rels
ORDER BY n.id
"""


def client_state(session: Any, client_id: str) -> list[Any]:
    rows = session.run(STATE, c=client_id)
    return [(*own_state(r["labels"], r["props"]), r["rels"]) for r in rows]


def colleague(settings: Settings, session: Any, of: Caller, role: Role, agent: str) -> Caller:
    """Another key of `of`'s client."""
    name = session.run("MATCH (c:Client {id: $id}) RETURN c.name", id=of.client_id).single()[0]
    issued = asyncio.run(create_key(settings, client=name, role=role, agent_name=agent))
    return Caller(http=of.http, key=issued.secret, client_id=of.client_id)
