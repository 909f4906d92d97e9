"""Counting records that the embedding worker has not indexed yet."""

from __future__ import annotations

from functools import cache

from app.graph.executor import GraphExecutor
from app.graph.identifiers import cypher_label
from app.retrieval.searchable import SEARCHABLE

# A record is pending while its indexed_version differs from its updated_at.
PENDING = "(n.indexed_version IS NULL OR n.indexed_version <> n.updated_at)"


@cache
def pending_query(*, all_clients: bool = False) -> str:
    """Pending records of the client $client_id, or of every client (operator commands)."""
    scope = "" if all_clients else "n.client_id = $client_id AND "
    parts = [
        f"MATCH (n:{cypher_label(label)}) WHERE {scope}{PENDING} RETURN count(n) AS pending"
        for label in SEARCHABLE
    ]
    return "CALL () { " + " UNION ALL ".join(parts) + " } RETURN sum(pending) AS pending"


async def pending_count(graph: GraphExecutor, *, client_id: str) -> int:
    rows = await graph.read(pending_query(), {"client_id": client_id})
    return int(rows[0]["pending"]) if rows else 0
