"""The access log writer against the real Neo4j (review 2 of issue 11, M-5): a refusal that is
not about the data (here: the database is not found) keeps the whole batch to retry instead of
rejecting every entry in it, and one entry the server refuses for its data (a map property) is
isolated while the rest are written."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime
from typing import Any

from app.domain.memory import AccessLogWriter
from app.graph.executor import GraphExecutor
from app.runtime import connected
from app.settings import Settings

COUNT = "MATCH (e:AccessLogEntry {client_id: $c}) RETURN count(e) AS n, collect(e.id) AS ids"
CLEAN = "MATCH (e:AccessLogEntry {client_id: $c}) DELETE e"


def entries(client_id: str, count: int) -> list[dict[str, Any]]:
    now = datetime.now(UTC)
    return [
        {"id": f"{client_id}-{n}", "client_id": client_id, "operation": "read", "created_at": now}
        for n in range(count)
    ]


def test_a_missing_database_keeps_the_batch_and_a_bad_entry_is_isolated(
    settings: Settings, neo4j_session: Any
) -> None:
    client_id = f"test-{uuid.uuid4().hex[:12]}"
    batch = entries(client_id, 120)
    batch[40]["detail"] = {"a map": "is no property value"}  # Neo4j refuses it, not the driver

    async def scenario() -> AccessLogWriter:
        async with connected(settings) as graph:
            log = AccessLogWriter(GraphExecutor(graph.driver, database="no-such-database"))
            for entry in batch:
                log.submit(entry)
            assert await log.flush() == 0
            assert log.pending == 120 and log.stats.rejected == 0 and log.stats.retried == 1
            log.graph = graph  # the database is back
            assert await log.flush() == 119
            return log

    try:
        log = asyncio.run(scenario())
        assert log.stats.rejected == 1 and log.pending == 0
        found = neo4j_session.run(COUNT, c=client_id).single()
        assert found["n"] == 119 and f"{client_id}-40" not in found["ids"]
    finally:
        neo4j_session.run(CLEAN, c=client_id).consume()
