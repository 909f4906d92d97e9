"""Clients (tenants). A client's own id is also its client_id, like every other record."""

from __future__ import annotations

import re

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.ids import new_id
from app.graph.executor import GraphExecutor

CLIENT_NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")

ENSURE_CLIENT = """
MERGE (c:Client {name: $name})
ON CREATE SET c.id = $id, c.client_id = $id, c.created_at = datetime(), c.updated_at = datetime()
RETURN c.id AS id
"""


async def ensure_client(graph: GraphExecutor, *, name: str) -> str:
    """The id of the client with this name, created if it does not exist yet."""
    if not CLIENT_NAME_PATTERN.match(name):
        raise ValidationFailed(
            "client name: lower-case letters, digits, '_' or '-', starting with a letter or digit"
        )
    new = new_id()
    rows = await graph.write(ENSURE_CLIENT, {"name": name, "id": new})
    return str(rows[0]["id"])
