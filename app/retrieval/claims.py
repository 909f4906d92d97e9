"""Embedding claims: any number of workers (API processes, `embed-worker` processes) share the
pending records, and none is embedded by two of them at the same time.

A pass reads candidates (pending and not claimed, or claimed by a worker whose claim ran out),
then claims them in one write transaction: each record's write lock first, then the conditions
read again (another worker may have claimed it since the read), then the claim: the worker's
holder id and `index_claim_until`, on the database's clock. Records are locked in id order, so
two workers never wait for each other in a cycle. The write-back (app/retrieval/indexing.py)
holds the record's lock, writes only while the worker still holds the claim, and releases it.

A worker that dies leaves its claims; they expire, and the expired-claims pass of every worker
finds them by `index_claim_until` (indexed, migration 0025, and carried only while claimed): the
cursors may have moved past such a record, which would otherwise be skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.graph.executor import GraphExecutor, Record, Tx
from app.graph.fragments import lock
from app.graph.identifiers import cypher_label
from app.retrieval.pending import PENDING
from app.retrieval.searchable import SearchableSpec

UNCLAIMED = "(n.index_claim_until IS NULL OR n.index_claim_until <= datetime())"
_FOUND = "RETURN n.id AS id, n.client_id AS client_id, n.updated_at AS updated_at"


@dataclass(frozen=True)
class Claimant:
    """One worker: who claims (app.graph.leases.new_holder) and for how long."""

    holder: str
    claim_s: float


def candidates_query(spec: SearchableSpec, *, newest_first: bool) -> str:
    order = "DESC" if newest_first else "ASC"
    return (
        f"MATCH (n:{cypher_label(spec.label)}) "
        f"WHERE n.updated_at >= $since AND {PENDING} AND {UNCLAIMED} "
        f"{_FOUND} ORDER BY n.updated_at {order} LIMIT $batch"
    )


def expired_query(spec: SearchableSpec) -> str:
    """Pending records whose claim ran out (their worker died or stalled)."""
    return (
        f"MATCH (n:{cypher_label(spec.label)}) "
        f"WHERE n.index_claim_until <= datetime() AND {PENDING} "
        f"{_FOUND} ORDER BY n.index_claim_until LIMIT $batch"
    )


def claim_query(spec: SearchableSpec, returning: str) -> str:
    """Claims the candidates `$rows` still pending and unclaimed once locked; `returning`
    over `n` for each record claimed."""
    until = "datetime() + duration({milliseconds: $claim_ms})"
    return (
        "UNWIND $rows AS row "
        f"MATCH (n:{cypher_label(spec.label)} {{id: row.id}}) WHERE n.client_id = row.client_id "
        f"{lock('n')} "
        f"WITH n WHERE {PENDING} AND {UNCLAIMED} "
        f"SET n.index_claim = $holder, n.index_claim_until = {until} "
        f"RETURN {returning}"
    )


def held(spec: SearchableSpec) -> str:
    """The start of a write-back over `$rows`: each record, locked before its claim is read,
    that this worker still holds, released."""
    return (
        "UNWIND $rows AS row "
        f"MATCH (n:{cypher_label(spec.label)} {{id: row.id}}) WHERE n.client_id = row.client_id "
        f"{lock('n')} "
        "WITH n, row WHERE n.index_claim = $holder "
        "REMOVE n.index_claim, n.index_claim_until "
    )


async def claim(
    graph: GraphExecutor,
    spec: SearchableSpec,
    found: list[Record],
    claimant: Claimant,
    *,
    returning: str,
) -> list[Record]:
    """The records of `found` that this worker now holds, as `returning` shows them."""
    if not found:
        return []
    params: dict[str, Any] = {
        "rows": by_id([{"id": r["id"], "client_id": r["client_id"]} for r in found]),
        "holder": claimant.holder,
        "claim_ms": round(claimant.claim_s * 1000),
    }
    query = claim_query(spec, returning)

    async def work(tx: Tx) -> list[Record]:
        return await tx.run(query, params)

    return await graph.in_transaction(work)


def by_id(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows in the order every worker locks records in."""
    return sorted(rows, key=lambda row: (str(row["id"]), str(row["client_id"])))
