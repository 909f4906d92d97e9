"""S3 uploads of the demo generator: a pool of threads, each storing objects through
ArtifactStore.put (on the thread's own event loop) until the batch's queue is empty."""

from __future__ import annotations

import asyncio
import queue
from concurrent.futures import ThreadPoolExecutor

from app.artifacts.store import ArtifactStore
from app.demo.rows import Upload
from app.domain.kernel.principal import Principal

UPLOAD_WORKERS = 8


async def upload_all(
    pool: ThreadPoolExecutor, artifacts: ArtifactStore, *, principal: Principal, items: list[Upload]
) -> None:
    """Store every object of a batch with UPLOAD_WORKERS threads pulling from one queue."""
    jobs: queue.SimpleQueue[Upload] = queue.SimpleQueue()
    for item in items:
        jobs.put(item)
    loop = asyncio.get_running_loop()
    workers = [
        loop.run_in_executor(pool, _drain, artifacts, principal, jobs)
        for _ in range(min(UPLOAD_WORKERS, len(items)))
    ]
    for mismatched in await asyncio.gather(*workers):
        if mismatched:
            raise RuntimeError(f"stored objects differ from the rows: {mismatched[:3]}")


def _drain(
    artifacts: ArtifactStore, principal: Principal, jobs: queue.SimpleQueue[Upload]
) -> list[str]:
    """One worker thread: ArtifactStore.put, on the thread's own event loop, until the queue
    is empty; returns the uris whose stored uri or sha256 differ from what the rows say."""

    async def drain() -> list[str]:
        mismatched: list[str] = []
        while True:
            try:
                item = jobs.get_nowait()
            except queue.Empty:
                return mismatched
            stored = await artifacts.put(
                principal, item.parts, item.data, content_type=item.content_type
            )
            if (stored.uri, stored.sha256) != (item.uri, item.sha256):
                mismatched.append(item.uri)

    return asyncio.run(drain())
