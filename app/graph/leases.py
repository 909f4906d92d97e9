"""Leases: a named node in the graph that one process holds at a time, until it lets go or the
lease expires (its holder died), and the turns of scheduled jobs taken on the same nodes.

Every decision is made in one write transaction, after the node's write lock is held: MATCH and
MERGE take no lock on a node they find, so two transactions could both read an expired lease
and both take it. Locked first (`lock`), the second waits for the first to commit and then reads
what it wrote. A new lease is MERGEd on the unique name (migration 0025), so concurrent first
acquirers create one node. Times are the database's clock (`datetime()`), the same for every
process whatever their own clocks say.
"""

from __future__ import annotations

import os
import secrets
import socket
from dataclasses import dataclass

from app.graph.executor import GraphExecutor, Record, Tx
from app.graph.fragments import lock

# The caller's node of the lease, locked; then `now` is the database's clock.
_LOCKED = f"MERGE (l:Lease {{name: $name}}) {lock('l')} WITH l, datetime() AS now"
# Free for the caller: nobody holds it, the caller does, or its holder's time ran out.
_FREE = "(l.holder IS NULL OR l.holder = $holder OR l.expires_at <= now)"
_UNTIL = "now + duration({milliseconds: $ttl_ms})"
ACQUIRE = f"""
{_LOCKED}
WITH l, now, {_FREE} AS free
SET l += CASE WHEN free THEN {{holder: $holder, expires_at: {_UNTIL}}} ELSE {{}} END
RETURN free
"""
RELEASE = f"""
MATCH (l:Lease {{name: $name}}) {lock("l")}
WITH l WHERE l.holder = $holder
SET l.holder = null, l.expires_at = null
"""
# A job's turn: the lease is free and its last run started an interval ago or more. The run is
# counted on the node (`runs`), so that every process's runs can be counted together.
TAKE_TURN = f"""
{_LOCKED}
WITH l, now, {_FREE} AND (l.last_run_at IS NULL
  OR l.last_run_at + duration({{milliseconds: $interval_ms}}) <= now) AS due
SET l += CASE WHEN due THEN {{holder: $holder, expires_at: {_UNTIL}, last_run_at: now,
  runs: coalesce(l.runs, 0) + 1}} ELSE {{}} END
RETURN due, toString(now) AS at, l.runs AS runs,
  duration.inSeconds(now, coalesce(l.last_run_at, now)
    + duration({{milliseconds: $interval_ms}})).milliseconds AS wait_ms
"""


def new_holder() -> str:
    """Who holds a lease: this host and process, and a random part (a pid is reused)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


@dataclass(frozen=True)
class Turn:
    due: bool  # this caller runs the job now
    at: str  # the database's time of the decision (ISO 8601)
    runs: int  # runs of the job so far, every process's together
    wait_s: float  # until the next run is due


@dataclass(frozen=True)
class Lease:
    graph: GraphExecutor
    name: str
    holder: str
    ttl_s: float

    async def acquire(self) -> bool:
        """Takes the lease, or extends it when this holder has it; False when another does."""
        rows = await self._once(ACQUIRE)
        return bool(rows[0]["free"])

    async def release(self) -> None:
        """Lets go, when this holder still has it (another may have taken an expired one)."""
        await self._once(RELEASE)

    async def take_turn(self, interval_s: float) -> Turn:
        """Holds the lease and counts a run when the job is due, in one transaction."""
        row = (await self._once(TAKE_TURN, interval_ms=round(interval_s * 1000)))[0]
        wait_s = max(int(row["wait_ms"]), 0) / 1000
        return Turn(bool(row["due"]), str(row["at"]), int(row["runs"] or 0), wait_s)

    async def _once(self, query: str, **extra: int) -> list[Record]:
        """One transaction, retried by the driver (a deadlock, a leader switch)."""
        params = {"name": self.name, "holder": self.holder, "ttl_ms": round(self.ttl_s * 1000)}

        async def work(tx: Tx) -> list[Record]:
            return await tx.run(query, params | extra)

        return await self.graph.in_transaction(work)
