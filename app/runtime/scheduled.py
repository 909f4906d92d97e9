"""Jobs that run once per interval across every API process (the memory sweeper, the idempotency
key purge): each process checks the job's lease (app/graph/leases.py) when the next run is due,
and the one that takes the turn runs it, holding the lease while it runs so that a run longer
than the interval is not started twice; the lease of a process that dies expires.

Each process keeps the database times of the turns it took (`details`): together, every
process's turns are the job's runs.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from app.graph.change_feed import acting
from app.graph.leases import Lease

log = logging.getLogger("app.scheduled")

TURNS_KEPT = 50
# The shortest wait between two checks, as a part of the interval: a turn that is due but held
# (a run that outlasts its interval) is looked at again this often.
MIN_WAIT = 0.05


@dataclass
class ScheduledJob:
    lease: Lease
    interval_s: float
    run: Callable[[], Awaitable[object]]
    turns: deque[str] = field(default_factory=lambda: deque(maxlen=TURNS_KEPT))
    runs_here: int = 0
    last_error: str | None = None

    async def run_forever(self) -> None:
        """Waits one interval after start-up (as a timer would), then takes turns when due."""
        wait = self.interval_s
        while True:
            await asyncio.sleep(wait)
            wait = await self.check()

    async def check(self) -> float:
        """Runs the job if this process takes its turn; seconds until the next check."""
        try:
            turn = await self.lease.take_turn(self.interval_s)
        except Exception as error:  # noqa: BLE001 - the graph is down: look again later
            self._failed("cannot take the turn", error)
            return self.interval_s
        started, wait_s = time.monotonic(), turn.wait_s
        if turn.due:
            self.runs_here += 1
            self.turns.append(turn.at)
            await self._run_holding()
            wait_s -= time.monotonic() - started  # the interval counts from the run's start
        return max(wait_s, self.interval_s * MIN_WAIT)

    async def _run_holding(self) -> None:
        """The job, with its lease extended every third of its term until it ends; stopped when
        the lease cannot be kept (another process may run it now); released after (not when
        cancelled: shutting down, the lease expires on its own)."""
        with acting(self.lease.name):  # what the job writes is its in the change feed
            job = asyncio.ensure_future(self.run())
        try:
            while not job.done():
                await asyncio.wait({job}, timeout=self.lease.ttl_s / 3)
                if not job.done() and not await self._still_held():
                    break
            if job.done():
                job.result()
                self.last_error = None
        except Exception as error:  # noqa: BLE001 - the next turn retries
            self._failed("run failed", error)
        finally:
            if not job.done():
                job.cancel()
                await asyncio.gather(job, return_exceptions=True)
        try:
            await self.lease.release()
        except Exception as error:  # noqa: BLE001 - it expires on its own
            self._failed("cannot release the lease", error)

    async def _still_held(self) -> bool:
        """Renews the lease; False when another process holds it now or the graph cannot say."""
        try:
            if await self.lease.acquire():
                return True
            log.warning("%s: the lease was taken over; this run stops", self.lease.name)
            self.last_error = "the lease was taken over while running"
        except Exception as error:  # noqa: BLE001 - unknown: the run must not go on unheld
            self._failed("cannot renew the lease; this run stops", error)
        return False

    def _failed(self, what: str, error: Exception) -> None:
        log.exception("%s: %s", self.lease.name, what)
        self.last_error = f"{what}: {type(error).__name__}: {error}"[:300]

    def details(self) -> dict[str, Any]:
        return {
            "interval_s": self.interval_s,
            "runs_here": self.runs_here,
            "recent_turns": list(self.turns),
            "last_error": self.last_error,
        }
