"""Result types of the memory operations."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry

from app.api.expiry.outputs import ExpiredCounts, expired_counts
from app.api.types.memory import MemoryRecord, MemoryVersion
from app.domain.agents.session_state_sweep import KIND as STATES_KIND
from app.domain.memory.access_log_retention import KIND as RETENTION_KIND
from app.domain.memory.eviction import EVICTED


@strawberry.type(description="What forgetMemory did.")
class ForgetResult:
    id: strawberry.ID
    hard: bool = strawberry.field(description="True: deleted; false: deactivated (soft).")
    versions_deleted: int
    objects_deleted: int = strawberry.field(description="Objects removed from storage.")


@strawberry.type(description="A record and its superseded states, newest first.")
class MemoryHistory:
    record: MemoryRecord
    versions: list[MemoryVersion]


@strawberry.type(description="One run of the expiry sweeper (counts for the caller's client).")
class MemorySweep:
    started_at: datetime
    finished_at: datetime | None
    scope: str = strawberry.field(description="'all' (background run) or 'client' (on request).")
    purged: int = strawberry.field(description="Expired records of this client it purged.")
    transcripts_purged: int = strawberry.field(
        description="Session transcripts of this client past their retention it purged."
    )
    expired: ExpiredCounts = strawberry.field(
        description="Expired sessions and threads of this client, and capped threads' events, "
        "it purged."
    )
    access_log_purged: int = strawberry.field(
        description="Access log entries of this client past accessLogRetentionDays it deleted."
    )
    evicted: int = strawberry.field(
        description="Live records of this client over AGENTMEM_MEMORY_CAPACITY (or a namespace's "
        "capacity) it purged, lowest priority then oldest first."
    )
    agent_session_states_purged: int = strawberry.field(
        description="Agent session states of this client past their expiresAt it deleted."
    )
    error: str | None


@strawberry.type(description="A memory found by search, with its score and why it matched.")
class MemorySearchHit:
    record: MemoryRecord
    score: float
    why: list[str]


def forget_result(row: dict[str, Any]) -> ForgetResult:
    return ForgetResult(
        id=strawberry.ID(row["id"]),
        hard=bool(row["hard"]),
        versions_deleted=int(row.get("versions_deleted") or 0),
        objects_deleted=int(row.get("objects_deleted") or 0),
    )


def sweep(summary: dict[str, Any]) -> MemorySweep:
    return MemorySweep(
        started_at=datetime.fromisoformat(summary["started_at"]),
        finished_at=datetime.fromisoformat(summary["finished_at"])
        if summary["finished_at"]
        else None,
        scope="all" if summary["scope"] == "all" else "client",
        purged=int(summary["purged"]),
        transcripts_purged=int(summary["transcripts"]),
        expired=expired_counts(summary.get("expired") or {}),
        access_log_purged=int((summary.get("expired") or {}).get(RETENTION_KIND, 0)),
        evicted=int((summary.get("expired") or {}).get(EVICTED, 0)),
        agent_session_states_purged=int((summary.get("expired") or {}).get(STATES_KIND, 0)),
        error="the run failed" if summary["error"] else None,
    )
