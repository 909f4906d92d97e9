"""One-shot administrative operations the CLI runs against the configured Neo4j."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from app.domain import keys
from app.domain.keys import IssuedKey, authenticate, ensure_client, issue_key
from app.graph.migrations import MigrationReport, migrate
from app.model.enums import Role
from app.runtime import connected
from app.settings import Settings


async def run_migrations(settings: Settings) -> MigrationReport:
    async with connected(settings) as graph:
        return await migrate(graph)


async def create_key(
    settings: Settings,
    *,
    client: str,
    role: Role,
    agent_name: str | None,
    expires_at: datetime | None = None,
) -> IssuedKey:
    async with connected(settings) as graph:
        await migrate(graph)
        client_id = await ensure_client(graph, name=client)
        return await issue_key(
            graph, client_id=client_id, role=role, agent_name=agent_name, expires_at=expires_at
        )


async def list_keys(settings: Settings, *, client: str) -> list[dict[str, Any]]:
    async with connected(settings) as graph:
        client_id = await keys.client_id_of(graph, client)
        return await keys.list_keys(graph, client_id=client_id)


async def revoke_key(settings: Settings, *, key_id: str) -> dict[str, Any]:
    async with connected(settings) as graph:
        return await keys.revoke_key(graph, client_id=None, key_id=key_id)


async def rotate_key(settings: Settings, *, key_id: str, expires_at: datetime | None) -> IssuedKey:
    async with connected(settings) as graph:
        return await keys.rotate_key(graph, client_id=None, key_id=key_id, expires_at=expires_at)


async def reuse_or_issue_key(
    settings: Settings, *, saved: str | None, client: str, role: Role, agent_name: str
) -> str:
    """The saved key if it still authenticates, else a fresh one for the same client."""
    async with connected(settings) as graph:
        await migrate(graph)
        if saved and await authenticate(graph, secret=saved) is not None:
            return saved
        client_id = await ensure_client(graph, name=client)
        issued = await issue_key(graph, client_id=client_id, role=role, agent_name=agent_name)
        return issued.secret
