"""Filling a memory index (`reembed`): the scope's searchable records that lack the model's
vector, walked in id order (index searchable_id, or searchable_client_id for a client), claimed
as the embedding worker claims them (claims.py), embedded with that model alone and written
back. Resumable: a record that has the vector is skipped, so a run stopped anywhere (killed,
or `limit`) goes on where it was when run again. Records the worker indexes meanwhile get
every index that is not retired (vectors.py), this one included."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from app.graph.executor import GraphExecutor, Record, Tx
from app.graph.fragments import lock
from app.graph.identifiers import cypher_label
from app.retrieval.claims import UNCLAIMED, Claimant, by_id, held
from app.retrieval.embedder import Embedder
from app.retrieval.index_rows import prepare, returned
from app.retrieval.indexing import TextLoader, with_stored_text
from app.retrieval.memory_index import DEPLOYMENT, scope_condition
from app.retrieval.searchable import SEARCHABLE, SearchableSpec
from app.retrieval.vector_index import VectorIndex

SCAN_WINDOW = 4  # records looked at per record embedded, at most, in each step of the walk
SENT = ("id", "client_id", "stamp", "vector")  # what the write-back needs of a row


@dataclass
class Walk:
    """Where the walk is (`after`: the last id it passed) and what it embedded."""

    after: str = ""
    embedded: int = 0
    done: bool = False


def scan_query(scope: str) -> str:
    """The next ids of the scope after $after; of them, those without the vector, unclaimed."""
    wanted = f"n[$property] IS NULL AND {UNCLAIMED}"
    # Ordered as its index is (searchable_id; searchable_client_id: client, then id), so that a
    # step reads its window from the index, never the rest of the scope.
    order = "n.id" if scope == DEPLOYMENT else "n.client_id, n.id"
    return (
        f"MATCH (n:Searchable) WHERE {scope_condition(scope)} AND n.id > $after "
        f"WITH n ORDER BY {order} LIMIT $window WITH collect(n) AS window "
        f"RETURN [n IN window WHERE {wanted} | n {{.id, .client_id, .updated_at, .record_type}}] "
        "AS found, CASE size(window) WHEN 0 THEN null ELSE window[-1].id END AS reached"
    )


def claim_query(spec: SearchableSpec) -> str:
    until = "datetime() + duration({milliseconds: $claim_ms})"
    return (
        "UNWIND $rows AS row "
        f"MATCH (n:{cypher_label(spec.label)} {{id: row.id}}) WHERE n.client_id = row.client_id "
        f"{lock('n')} "
        f"WITH n WHERE n:Searchable AND n[$property] IS NULL AND {UNCLAIMED} "
        f"SET n.index_claim = $holder, n.index_claim_until = {until} "
        f"RETURN {returned(spec)}"
    )


def fill_query(spec: SearchableSpec) -> str:
    """The vector of what the worker still holds, unchanged since it was claimed."""
    return (
        f"{held(spec)}"
        "WITH n, row WHERE toString(n.updated_at) = row.stamp AND row.vector IS NOT NULL "
        "SET n[$property] = row.vector RETURN count(n) AS written"
    )


async def walk_step(
    graph: GraphExecutor,
    embedder: Embedder,
    index: VectorIndex,
    scope: str,
    walk: Walk,
    *,
    batch: int,
    claimant: Claimant,
    load_text: TextLoader | None,
) -> None:
    """The next `batch` records of the walk that lack the vector, given it."""
    params = {"scope": scope, "after": walk.after, "property": index.property}
    rows = await graph.read(scan_query(scope), params | {"window": batch * SCAN_WINDOW})
    if not rows or rows[0]["reached"] is None:
        walk.done = True
        return
    found = rows[0]["found"]
    # More than a batch lack it: the walk goes on after the last one taken.
    walk.after = str(found[batch - 1]["id"] if len(found) > batch else rows[0]["reached"])
    labels: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in found[:batch]:
        labels[str(record["record_type"])].append(dict(record))
    for label, found in labels.items():
        if label in SEARCHABLE:
            spec = SEARCHABLE[label]
            walk.embedded += await _fill(graph, embedder, index, spec, found, claimant, load_text)


async def _fill(
    graph: GraphExecutor,
    embedder: Embedder,
    index: VectorIndex,
    spec: SearchableSpec,
    found: list[dict[str, Any]],
    claimant: Claimant,
    load_text: TextLoader | None,
) -> int:
    claimed = await _claim(graph, spec, found, claimant, index.property)
    texts = [await with_stored_text(spec, dict(row), load_text) for row in claimed]
    rows = by_id([prepare(spec, row) for row in texts])
    wanted = [row for row in rows if not row["empty"]]
    vectors, _ = await embedder.embed_batch([row["embed_text"] for row in wanted])
    for row, vector in zip(wanted, vectors, strict=True):
        row["vector"] = vector
    sent = [{key: row.get(key) for key in SENT} for row in rows]
    params = {"rows": sent, "holder": claimant.holder, "property": index.property}
    written = await graph.write(fill_query(spec), params) if rows else []
    return int(written[0]["written"]) if written else 0


async def _claim(
    graph: GraphExecutor,
    spec: SearchableSpec,
    found: list[dict[str, Any]],
    claimant: Claimant,
    vector_property: str,
) -> list[Record]:
    params: dict[str, Any] = {
        "rows": by_id([{"id": r["id"], "client_id": r["client_id"]} for r in found]),
        "holder": claimant.holder,
        "claim_ms": round(claimant.claim_s * 1000),
        "property": vector_property,
    }
    query = claim_query(spec)

    async def work(tx: Tx) -> list[Record]:
        return await tx.run(query, params)

    return await graph.in_transaction(work)
