"""Clients (tenants). A client's own id is also its client_id, like every other record."""

from __future__ import annotations

import re

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.ids import new_id
from app.graph.change_feed import note_change, unrecorded
from app.graph.executor import GraphExecutor, Tx
from app.model.enums import ChangeAction

CLIENT_NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")

ENSURE_CLIENT = """
MERGE (c:Client {name: $name})
ON CREATE SET c.id = $id, c.client_id = $id, c.created_at = datetime(), c.updated_at = datetime()
RETURN c.id AS id, c.id = $id AS created
"""


async def ensure_client(graph: GraphExecutor, *, name: str) -> str:
    """The id of the client with this name, created if it does not exist yet."""
    if not CLIENT_NAME_PATTERN.match(name):
        raise ValidationFailed(
            "client name: lower-case letters, digits, '_' or '-', starting with a letter or digit"
        )

    async def work(tx: Tx) -> str:
        row = (await tx.run(ENSURE_CLIENT, {"name": name, "id": new_id()}))[0]
        if row["created"]:  # a client is its own client_id
            note_change(row["id"], "Client", row["id"], ChangeAction.CREATED)
        else:
            unrecorded()
        return str(row["id"])

    return await graph.in_transaction(work)
