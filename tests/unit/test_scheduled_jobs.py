"""Scheduled jobs take turns through a lease (a small fake of it here; the real one races in
tests/integration/test_leases.py), and every searchable label can find its expired claims."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field

from app.graph.cypher_files import load_migrations
from app.graph.leases import Turn
from app.model.labels import SEARCHABLES
from app.runtime.scheduled import ScheduledJob


@dataclass
class FakeLease:
    """Due on the turns listed; records what the job did with it."""

    due: list[bool]
    renewals: list[bool | Exception] = field(default_factory=list)  # then True
    name: str = "job"
    ttl_s: float = 0.03
    calls: list[str] = field(default_factory=list)

    async def take_turn(self, interval_s: float) -> Turn:
        self.calls.append("turn")
        due = self.due.pop(0)
        return Turn(due=due, at=f"t{len(self.calls)}", runs=0, wait_s=interval_s)

    async def acquire(self) -> bool:
        self.calls.append("renew")
        answer = self.renewals.pop(0) if self.renewals else True
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def release(self) -> None:
        self.calls.append("release")


def _job(lease: FakeLease, run: object) -> ScheduledJob:
    return ScheduledJob(lease=lease, interval_s=10.0, run=run)  # type: ignore[arg-type]


def test_a_job_runs_only_on_its_turn_and_lets_go_after() -> None:
    lease, ran = FakeLease(due=[False, True]), []

    async def run() -> None:
        ran.append(1)

    job = _job(lease, run)
    assert asyncio.run(job.check()) == 10.0
    assert ran == [] and job.runs_here == 0
    asyncio.run(job.check())
    assert ran == [1] and job.runs_here == 1 and list(job.turns) == ["t2"]
    assert lease.calls == ["turn", "turn", "release"]


def test_a_long_run_renews_its_lease_and_a_failed_one_is_reported() -> None:
    lease = FakeLease(due=[True])

    async def run() -> None:
        await asyncio.sleep(0.05)  # more than a third of the lease's term, twice
        raise RuntimeError("boom")

    job = _job(lease, run)
    asyncio.run(job.check())
    assert lease.calls.count("renew") >= 2 and lease.calls[-1] == "release"
    assert job.last_error is not None and "RuntimeError: boom" in job.last_error
    assert job.details()["runs_here"] == 1


def test_a_run_whose_lease_cannot_be_kept_is_stopped() -> None:
    for renewal in (False, ConnectionError("graph gone")):
        lease, stopped = FakeLease(due=[True], renewals=[renewal]), []

        async def run(stopped: list[bool] = stopped) -> None:
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                stopped.append(True)
                raise

        job = _job(lease, run)
        asyncio.run(asyncio.wait_for(job.check(), timeout=5))
        assert stopped == [True], renewal  # another process may be running it now
        assert lease.calls == ["turn", "renew", "release"]
        assert job.last_error is not None


def test_every_searchable_label_indexes_its_claims() -> None:
    """The expired-claims pass looks records up by index_claim_until (app/retrieval/claims.py)."""
    text = "\n".join(s for m in load_migrations() for s in m.statements)
    missing = [
        label
        for label in SEARCHABLES
        if not re.search(rf"FOR \(n:{label}\) ON \(n\.index_claim_until\)", text)
    ]
    assert missing == []
