"""A record that cannot be indexed is marked and skipped, not retried in every batch of its
label forever; the records beside it are indexed. Real Neo4j; the embedder is a small fake that
refuses one text (the model itself is not under test here)."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime
from typing import Any

from app.graph.leases import new_holder
from app.retrieval.claims import Claimant
from app.retrieval.indexing import index_pass
from app.retrieval.pending import pending_count
from app.retrieval.searchable import SEARCHABLE
from app.runtime import connected
from app.settings import Settings

# Dated long before anything else in the database, so that these scans see only this test's
# records (the service's own worker scans from its recent cursor and never goes back there).
SINCE = datetime(1999, 3, 14, tzinfo=UTC)
CREATE = """
UNWIND $rows AS row
CREATE (:Lesson {id: row.id, client_id: $client_id, statement: row.statement, scope: 'global',
                 status: 'active', created_at: datetime($since),
                 updated_at: datetime($since) + duration({seconds: row.offset})})
"""
STATE = """
MATCH (n:Lesson {client_id: $client_id})
RETURN n.id AS id, n:Searchable AS searchable, n.embedding IS NOT NULL AS embedded,
       n.index_error AS error, n.indexed_version = n.updated_at AS settled
"""


class RefusingEmbedder:
    model_name = "refusing-test-embedder"

    async def embed_batch(self, texts: list[str]) -> tuple[list[list[float]], list[bool]]:
        if any("POISON" in text for text in texts):
            raise ValueError("this text cannot be embedded")
        return [[1.0] + [0.0] * 383 for _ in texts], [False] * len(texts)


async def _state(graph: Any, client_id: str) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in await graph.read(STATE, {"client_id": client_id})}


async def _scenario(settings: Settings) -> None:
    client_id, spec = str(uuid.uuid4()), SEARCHABLE["Lesson"]
    embedder: Any = RefusingEmbedder()
    claimant = Claimant(holder=new_holder(), claim_s=60)
    ids = [str(uuid.uuid4()) for _ in range(3)]
    statements = ["Reels under 30 seconds", "POISON statement", "Carousels for pricing"]
    rows = [
        {"id": i, "statement": s, "offset": n}
        for n, (i, s) in enumerate(zip(ids, statements, strict=True))
    ]
    async with connected(settings) as graph:
        params = {"rows": rows, "client_id": client_id, "since": SINCE.isoformat()}
        await graph.write(CREATE, params)
        result = await index_pass(
            graph, embedder, batch=3, spec=spec, since=SINCE, newest_first=False, claimant=claimant
        )
        assert (result.seen, result.embedded, result.failed) == (3, 2, 1)
        state = await _state(graph, client_id)
        good, bad = [state[ids[0]], state[ids[2]]], state[ids[1]]
        assert all(r["searchable"] and r["embedded"] and r["error"] is None for r in good)
        assert not bad["searchable"] and not bad["embedded"] and bad["settled"]
        assert bad["error"].startswith("ValueError: this text cannot be embedded")
        # Not pending any more: later batches of the label are not blocked by it.
        assert await pending_count(graph, client_id=client_id) == 0

        # Its next update makes it pending again; indexed now, its error goes.
        await graph.write(
            "MATCH (n:Lesson {id: $id}) SET n.statement = 'Fixed statement', "
            "n.updated_at = datetime($since) + duration({seconds: 10})",
            {"id": ids[1], "since": SINCE.isoformat()},
        )
        assert await pending_count(graph, client_id=client_id) == 1
        since = datetime(1999, 3, 14, 0, 0, 10, tzinfo=UTC)
        retried = await index_pass(
            graph, embedder, batch=1, spec=spec, since=since, newest_first=False, claimant=claimant
        )
        assert (retried.seen, retried.embedded, retried.failed) == (1, 1, 0)
        fixed = (await _state(graph, client_id))[ids[1]]
        assert fixed["searchable"] and fixed["embedded"] and fixed["error"] is None
        await graph.write("MATCH (n:Lesson {client_id: $c}) DETACH DELETE n", {"c": client_id})


def test_a_record_that_cannot_be_indexed_is_marked_and_skipped(settings: Settings) -> None:
    asyncio.run(_scenario(settings))
