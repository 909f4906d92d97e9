"""`/readyz`'s checks are shared (second review E-4): a flood of probes runs them once per
READY_FOR_S while ready, one run at a time while not, never once per probe."""

from __future__ import annotations

import asyncio

from app.web.readiness_checks import READY_FOR_S, Checks, SharedChecks


class CountedChecks:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.runs = 0

    async def __call__(self) -> Checks:
        self.runs += 1
        await asyncio.sleep(self.seconds)
        return {"neo4j": "ok", "s3": "ok"}  # a new result each run


def test_concurrent_probes_share_one_run_and_a_ready_result_is_kept_a_while() -> None:
    run = CountedChecks(0.05)

    async def scenario() -> list[Checks]:
        shared = SharedChecks(run, keep_s=0.2)
        flood = await asyncio.gather(*(shared.result() for _ in range(200)))
        kept = await shared.result()
        await asyncio.sleep(0.25)
        return [*flood, kept, await shared.result()]

    results = asyncio.run(scenario())
    assert run.runs == 2
    assert all(result is results[0] for result in results[:-1])
    assert results[-1] is not results[0]  # expired: checked again
    assert READY_FOR_S <= 1.0  # a probe sees a state at most this old


def test_a_probe_that_gives_up_does_not_cancel_the_run_for_the_others() -> None:
    run = CountedChecks(0.1)

    async def scenario() -> Checks:
        shared = SharedChecks(run, keep_s=1.0)
        impatient = asyncio.create_task(shared.result())
        patient = asyncio.create_task(shared.result())
        await asyncio.sleep(0.02)
        impatient.cancel()
        return await patient

    assert asyncio.run(scenario()) == {"neo4j": "ok", "s3": "ok"} and run.runs == 1


def test_a_not_ready_result_is_shared_but_not_kept() -> None:
    """A recovery shows at once; during an outage the checks still run one at a time."""
    outcomes = iter(["error: no answer within 0.4 s", "error: boom", "ok", "error: later"])
    runs = 0

    async def run() -> Checks:
        nonlocal runs
        runs += 1
        await asyncio.sleep(0.02)
        return {"neo4j": "ok", "s3": next(outcomes)}

    async def scenario() -> list[str]:
        shared = SharedChecks(run, keep_s=10.0)
        together = await asyncio.gather(*(shared.result() for _ in range(50)))
        assert {result["s3"] for result in together} == {"error: no answer within 0.4 s"}
        return [(await shared.result())["s3"] for _ in range(3)]

    assert asyncio.run(scenario()) == ["error: boom", "ok", "ok"] and runs == 3


def test_a_failed_run_is_not_kept() -> None:
    calls = 0

    async def failing() -> Checks:
        nonlocal calls
        calls += 1
        raise RuntimeError("boom")

    async def scenario() -> None:
        shared = SharedChecks(failing, keep_s=10.0)
        for _ in range(2):
            try:
                await shared.result()
            except RuntimeError:
                pass

    asyncio.run(scenario())
    assert calls == 2
