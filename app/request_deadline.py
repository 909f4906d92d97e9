"""The time a request may still spend waiting for Neo4j and object storage.

The request edge (app/web/middleware.py) gives each HTTP request one budget
(Settings.dependency_timeout_s); every graph call and object-storage call made while answering
it ends by then (app/graph/executor.py, app/artifacts/store.py). A bound per call would let a
request that makes several calls during an outage wait that bound several times over. Time
spent waiting for the client's own body does not count: a slow upload is the body timeout's
business, not a sign that a dependency is down. Work outside a request (background jobs, tools)
has no deadline; its calls are bounded one by one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class Deadline:
    """A loop time (asyncio's monotonic clock) by which the request's calls must end."""

    def __init__(self, seconds: float) -> None:
        self.at = asyncio.get_running_loop().time() + seconds

    def extend(self, seconds: float) -> None:
        self.at += seconds


_current: ContextVar[Deadline | None] = ContextVar("request_deadline", default=None)


@contextmanager
def request_deadline(seconds: float) -> Iterator[Deadline]:
    """Calls made inside the block end within `seconds` of now, all of them together."""
    deadline = Deadline(seconds)
    token = _current.set(deadline)
    try:
        yield deadline
    finally:
        _current.reset(token)


@contextmanager
def within_deadline(seconds: float) -> Iterator[None]:
    """The request's deadline where one is running (the HTTP edge's), else one of `seconds`
    from now (a door without that edge: MCP on stdio, or a task that does not see it)."""
    if _current.get() is not None:
        yield
        return
    with request_deadline(seconds):
        yield


@contextmanager
def deadline_paused() -> Iterator[None]:
    """Time spent inside the block does not count against the request's deadline: it bounds the
    wait on Neo4j and object storage, not our own CPU work (a query embedding, or the model's
    first load, which takes seconds on a busy machine)."""
    deadline = _current.get()
    if deadline is None:
        yield
        return
    loop = asyncio.get_running_loop()
    started = loop.time()
    try:
        yield
    finally:
        deadline.extend(loop.time() - started)


def call_deadline(timeout_s: float | None, *, margin_s: float = 0.0) -> float | None:
    """The loop time by which a call starting now must end: its own bound (`timeout_s`) or the
    request's deadline less `margin_s`, whichever comes first; None when neither applies."""
    ends = []
    if timeout_s is not None:
        ends.append(asyncio.get_running_loop().time() + timeout_s)
    deadline = _current.get()
    if deadline is not None:
        ends.append(deadline.at - margin_s)
    return min(ends, default=None)
