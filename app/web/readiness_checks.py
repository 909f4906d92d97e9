"""The readiness checks behind `/readyz` (app/web/readiness.py): each bounded in time, and shared.

`/readyz` needs no key, so its checks (a Neo4j query, an S3 call) are shared: one run at a time,
whose result every probe waiting meanwhile gets, and a "ready" result is served for READY_FOR_S.
A flood of probes then adds no load, and cannot queue the checks past their time and report
"not ready" for a healthy instance. A "not ready" result is not kept: the next probe checks
again (one run at a time still), so a recovery shows at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from minio import Minio

from app.artifacts.s3_client import make_client
from app.runtime import Services
from app.settings import Settings

# Each check, and the admin key lookup that unlocks the details, gets this long: together they
# stay under the second a load balancer's probe allows.
CHECK_TIMEOUT_S = 0.4
READY_FOR_S = 0.5
Checks = dict[str, str]


class S3Probe:
    """A client whose calls give up within the check's time, so that a probe of a stalled S3
    does not hold a thread for the whole dependency timeout, on threads of its own: behind
    the loop's shared default pool (busy under load) a probe would time out waiting for a
    thread and report "not ready" for nothing."""

    def __init__(self, settings: Settings) -> None:
        self.client: Minio = make_client(settings, timeout_s=CHECK_TIMEOUT_S)
        self.threads = ThreadPoolExecutor(max_workers=4, thread_name_prefix="s3-probe")

    async def check(self, bucket: str) -> str:
        loop = asyncio.get_running_loop()
        exists = await loop.run_in_executor(self.threads, self.client.bucket_exists, bucket)
        return "ok" if exists else f"error: bucket {bucket} missing"

    def close(self) -> None:
        self.threads.shutdown(wait=False, cancel_futures=True)


class SharedChecks:
    """The result of `run`: callers that ask while it runs wait for that same run (a caller
    giving up does not cancel it for the others), and a result whose every check is "ok" is
    kept `keep_s` seconds after it ends."""

    def __init__(self, run: Callable[[], Awaitable[Checks]], *, keep_s: float) -> None:
        self.run = run
        self.keep_s = keep_s
        self._kept: tuple[float, Checks] | None = None
        self._running: asyncio.Task[Checks] | None = None

    async def result(self) -> Checks:
        loop = asyncio.get_running_loop()
        if self._kept is not None and self._kept[0] > loop.time():
            return self._kept[1]
        if self._running is None:
            self._running = asyncio.create_task(self._run_and_keep())
        return await asyncio.shield(self._running)

    async def _run_and_keep(self) -> Checks:
        try:
            checks = await self.run()
            if all(value == "ok" for value in checks.values()):
                self._kept = (asyncio.get_running_loop().time() + self.keep_s, checks)
            return checks
        finally:
            self._running = None


def shared_checks(state: Any, services: Services) -> SharedChecks:
    """The app's shared readiness checks, made at the first /readyz."""
    if getattr(state, "readiness", None) is None:
        state.s3_probe = probe = S3Probe(services.settings)

        async def run() -> Checks:
            neo4j, s3 = await asyncio.gather(
                _within(_neo4j(services)), _within(probe.check(services.artifacts.bucket))
            )
            return {"neo4j": neo4j, "s3": s3}

        state.readiness = SharedChecks(run, keep_s=READY_FOR_S)
    readiness: SharedChecks = state.readiness
    return readiness


def close_probes(state: Any) -> None:
    """At shutdown: the S3 probe's threads, if /readyz was ever asked."""
    probe = getattr(state, "s3_probe", None)
    if probe is not None:
        probe.close()


async def _within(check: Awaitable[str]) -> str:
    try:
        async with asyncio.timeout(CHECK_TIMEOUT_S):
            return await check
    except TimeoutError:
        return f"error: no answer within {CHECK_TIMEOUT_S} s"
    except Exception as error:  # noqa: BLE001 - readiness reports any failure
        return f"error: {type(error).__name__}"


async def _neo4j(services: Services) -> str:
    await services.graph.read("RETURN 1 AS ok")
    return "ok"
