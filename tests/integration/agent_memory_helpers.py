"""Helpers for the agent state and learning tests: memory records seeded with plain Cypher
(their own API is tested elsewhere), concurrent requests, round-trip counting."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from tests.integration.conftest import Caller

SEED_RECORD = """
CREATE (r:MemoryRecord)
SET r = $props, r.created_at = datetime($created_at), r.updated_at = datetime($created_at)
"""


def seed_memory(session: Any, caller: Caller, **fields: Any) -> str:
    """A live memory record of the caller's client; `age_s` makes it older than now."""
    record_id = str(uuid.uuid4())
    age = timedelta(seconds=float(fields.pop("age_s", 0)))
    parts = [
        f"{tag}:{fields[name]}"
        for name, tag in (("subject", "subject"), ("agent", "agent"), ("session_id", "session"))
        if fields.get(name)
    ]
    props = {
        "id": record_id,
        "client_id": caller.client_id,
        "namespace": "/".join(parts),
        "kind": "semantic",
        "priority": 5,
        "active": True,
        "version": 1,
        "tags": [],
        "path": [],
    } | fields
    created_at = (datetime.now(UTC) - age).isoformat()
    session.run(SEED_RECORD, props=props, created_at=created_at).consume()
    return record_id


def counted(caller: Caller, query: str, variables: dict[str, Any]) -> tuple[Any, int]:
    body = caller.gql(query, variables, **{"X-Agentmem-Roundtrips": "1"})
    assert not body.get("errors"), body["errors"]
    return body["data"], body["extensions"]["cypherRoundTrips"]


def concurrently(caller: Caller, query: str, variables: list[dict[str, Any]]) -> list[Any]:
    """The bodies of the requests, all sent at once."""

    async def send_all() -> list[Any]:
        base = str(caller.http.base_url)
        headers = {"Authorization": f"Bearer {caller.key}"}
        async with httpx.AsyncClient(base_url=base, timeout=60, headers=headers) as client:
            responses = await asyncio.gather(
                *(client.post("/graphql", json={"query": query, "variables": v}) for v in variables)
            )
        assert all(r.status_code == 200 for r in responses)
        return [r.json() for r in responses]

    return asyncio.run(send_all())
