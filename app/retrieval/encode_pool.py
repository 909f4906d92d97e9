"""The threads that run the embedding model, shared by query batches and the embedding worker.

Each thread runs one model call at a time (`size`: Settings.embedding_pool_size), off the event
loop. Query batches are served before record chunks, so a search waits at most for the chunk
in progress, never for a whole indexing batch. A slot is freed when its thread finishes, not
when its caller stops waiting: a cancelled search must not let a second encode start beside
one still running on a small machine.

Each priority has its own threads, at its own nice value: a query batch is on the path of the
searches waiting for it, a record chunk is background work (a thread cannot raise its priority
back once lowered, without privileges, so one thread cannot serve both).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from typing import TypeVar

T = TypeVar("T")

QUERY, RECORD = 0, 1  # priorities, served in this order


class EncodePool:
    """Every `acquire` is followed by exactly one `submit` (which frees the slot when its
    thread is done) or `release`."""

    def __init__(self, size: int, *, nice: int = 0, query_nice: int = 0) -> None:
        """`nice`: of the threads that run record chunks; `query_nice`: of query batches'."""
        self.size = size
        self.nice = {QUERY: query_nice, RECORD: nice}
        self._free = size
        self._waiting: tuple[deque[asyncio.Future[None]], ...] = (deque(), deque())
        self._executors: dict[int, ThreadPoolExecutor] = {}

    async def run(self, priority: int, call: Callable[[], T]) -> T:
        """`call()` in a pool thread once a slot is free for `priority`."""
        await self.acquire(priority)
        return await self.submit(priority, call)

    async def acquire(self, priority: int) -> None:
        if self._free > 0 and not any(self._waiting):
            self._free -= 1
            return
        waiter = asyncio.get_running_loop().create_future()
        self._waiting[priority].append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.cancelled():
                with suppress(ValueError):  # a release may have skipped past it already
                    self._waiting[priority].remove(waiter)
            else:  # the slot was handed over just as the caller was cancelled
                self.release()
            raise

    async def submit(self, priority: int, call: Callable[[], T]) -> T:
        """Runs `call` on the slot the caller acquired; the slot is free again once it ends."""
        return await self.start(priority, call)

    def start(self, priority: int, call: Callable[[], T]) -> asyncio.Future[T]:
        """`submit` without waiting: the thread has `call` (and frees the slot when it ends)
        whatever becomes of the caller from here on."""
        loop = asyncio.get_running_loop()
        try:
            done = self._threads(priority).submit(call)
        except BaseException:
            self.release()
            raise
        done.add_done_callback(lambda _: self._release_from_thread(loop))
        return asyncio.wrap_future(done)

    def release(self) -> None:
        for queue in self._waiting:
            while queue:
                waiter = queue.popleft()
                if not waiter.done():
                    waiter.set_result(None)
                    return
        self._free += 1

    @property
    def queued(self) -> int:
        """Callers waiting for a slot."""
        return sum(1 for queue in self._waiting for waiter in queue if not waiter.done())

    def close(self) -> None:
        """Lets idle threads end; a later call starts new ones."""
        for executor in self._executors.values():
            executor.shutdown(wait=False, cancel_futures=True)
        self._executors.clear()

    def _threads(self, priority: int) -> ThreadPoolExecutor:
        if priority not in self._executors:
            self._executors[priority] = ThreadPoolExecutor(
                self.size,
                thread_name_prefix="embed-query" if priority == QUERY else "embed-records",
                initializer=lower_priority,
                initargs=(self.nice[priority],),
            )
        return self._executors[priority]

    def _release_from_thread(self, loop: asyncio.AbstractEventLoop) -> None:
        try:
            loop.call_soon_threadsafe(self.release)
        except RuntimeError:
            # The loop closed while the model ran (asyncio.run ended): it has no waiters left,
            # and the next loop finds the slot free.
            self._free += 1


def lower_priority(nice: int) -> None:
    """Runs in each new pool thread: Linux gives a thread its own nice value, so when the CPU is
    short the event loop (every other request) and a Neo4j on the same machine go first. Only
    ever lowers the thread's priority."""
    if not hasattr(os, "setpriority"):
        return
    thread = threading.get_native_id()
    with suppress(OSError):  # not allowed here: the thread keeps the process's priority
        if nice > os.getpriority(os.PRIO_PROCESS, thread):
            os.setpriority(os.PRIO_PROCESS, thread, nice)
