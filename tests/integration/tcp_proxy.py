"""A TCP forwarder the tests control, put between the app and a shared server (which the tests
must never stop): `down()` acts like a killed server (connections cut, new ones refused),
`stall()` like an unreachable one (connections accepted, nothing ever answered), `slow(s)` like
a far or overloaded one (every chunk forwarded `s` seconds late), `up()` heals.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class TcpProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.port = free_port()
        self.stalled = False
        self.delay_s = 0.0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._thread.start()
        self.up()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def up(self) -> None:
        self.stalled = False
        self.delay_s = 0.0
        if self._server is None:
            self._call(self._listen())

    def down(self) -> None:
        """Refuse new connections and cut the open ones."""
        self._call(self._stop_listening())
        self._call(self._cut())

    def stall(self) -> None:
        """Accept connections but never answer; the open ones are cut (their peer vanished)."""
        self.stalled = True
        if self._server is None:
            self._call(self._listen())
        self._call(self._cut())

    def slow(self, delay_s: float) -> None:
        """Forward every chunk, both ways, `delay_s` late."""
        self.delay_s = delay_s

    def close(self) -> None:
        self.down()
        self._call(self._cancel_tasks())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)

    async def _cancel_tasks(self) -> None:
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=10)

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)

    async def _stop_listening(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None

    async def _cut(self) -> None:
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        if self.stalled:
            with contextlib.suppress(OSError):
                while await reader.read(65536):
                    pass  # swallowed: a black hole
            return
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers.add(upstream_writer)
        await asyncio.gather(
            self._pipe(reader, upstream_writer), self._pipe(upstream_reader, writer)
        )

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                if self.stalled:
                    continue
                if self.delay_s:
                    await asyncio.sleep(self.delay_s)
                writer.write(data)
                await writer.drain()
        writer.transport.abort()
        self._writers.discard(writer)
