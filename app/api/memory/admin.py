"""The access log and the expiry sweeper: reads for admins (and analysts, for the log)."""

from __future__ import annotations

import dataclasses
from typing import Any

import strawberry

from app.api.context import Info
from app.api.memory import outputs as o
from app.api.memory.inputs import AccessLogWhere
from app.api.resolve import run
from app.api.types.connection import Connection, connection
from app.api.types.memory import AccessLogEntry
from app.domain.kernel.errors import AppError
from app.domain.memory import MemorySweeper, list_access_log
from app.model.enums import Role
from app.runtime import MemoryBackground


def sweeper(info: Info) -> MemorySweeper:
    background: MemoryBackground | None = getattr(
        info.context.request.app.state, "memory_background", None
    )
    if background is None:
        raise AppError("the expiry sweeper is not running in this process")
    return background.sweeper


@strawberry.type
class MemoryAdminQueries:
    @strawberry.field(
        description="Reads and writes of memory records (admins and analysts), newest first: "
        "operation, principal, role, target, outcome. Entries still buffered are written first."
    )
    async def access_log(
        self,
        info: Info,
        where: AccessLogWhere | None = None,
        first: int = 50,
        after: str | None = None,
    ) -> Connection[AccessLogEntry]:
        filters: dict[str, Any] = dataclasses.asdict(where) if where else {}
        entries, total = await run(
            info,
            list_access_log,
            where=filters,
            first=first,
            after=after,
        )
        nodes = [AccessLogEntry.from_row(entry) for entry in entries]
        return connection(nodes, entries, total=total, first=first)

    @strawberry.field(
        description="The expiry sweeper's recent runs, newest first, with this client's counts "
        "(admins)."
    )
    def memory_sweeps(self, info: Info) -> list[o.MemorySweep]:
        principal = info.context.caller()
        principal.require(Role.ADMIN)
        return [o.sweep(run) for run in sweeper(info).runs_of(principal.client_id)]


@strawberry.type
class MemoryAdminMutations:
    @strawberry.mutation(
        description="Purge this client's expired memory records now, and evict its records "
        "over capacity, then purge its expired sessions and threads and its capped threads' "
        "older events (`expired`) (admins); the background sweeper does the same for every "
        "client every memorySweepIntervalS seconds."
    )
    async def sweep_expired_memories(self, info: Info) -> o.MemorySweep:
        principal = info.context.caller()
        principal.require(Role.ADMIN)
        run = await sweeper(info).sweep(principal.client_id)
        return o.sweep(run.summary() | {"purged": run.per_client.get(principal.client_id, 0)})
