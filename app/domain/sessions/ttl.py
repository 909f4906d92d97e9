"""A session's time to live (seed 002): setSessionTtl gives it a new TTL from now, and
optionally a new default TTL for the entries put after (those already put keep theirs)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain import expiry
from app.domain.kernel.principal import Principal
from app.domain.sessions.repository import SESSION, locked_session, session_record, session_scope
from app.graph.executor import GraphExecutor, Tx


async def set_session_ttl(
    graph: GraphExecutor,
    *,
    principal: Principal,
    session_id: str,
    ttl_seconds: int,
    entry_ttl_seconds: int | None = None,
) -> dict[str, Any]:
    """The session expires ttl_seconds after now (and after each later entry); 0: never."""
    principal.require_writer()
    scope = session_scope(principal, session_id, field="session_id")
    changes = expiry.ttl_changes(ttl_seconds, datetime.now(UTC))
    if entry_ttl_seconds is not None:
        changes |= expiry.entry_ttl_changes(entry_ttl_seconds)

    async def work(tx: Tx) -> dict[str, Any]:
        await locked_session(tx, scope, principal)
        return session_record(await SESSION.change(tx, scope, changes))

    return await graph.in_transaction(work)
