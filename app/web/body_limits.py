"""The request body's limits: its size (413) and the time it may take to arrive (408), both
answered in JSON with a code, like every other refusal; and the request's deadline for Neo4j and
S3 (app/request_deadline.py) is paused while the body arrives, which is the client's time.

All three act on the request's `receive`, so they are one wrapper (`BodyReceiver`) that the
request edge (app/web/middleware.py) puts around it: as three middleware layers they cost ~12 µs of
every request's time (second review E-7), as one ~5 µs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from starlette.types import Message, Receive, Send

from app.api.edge.asgi import error_body, send_json
from app.request_deadline import Deadline


class BodyTooLarge(Exception):
    pass


class BodyTooSlow(Exception):
    pass


class BodyReceiver:
    """A request's `receive` that raises BodyTooLarge once more than `max_bytes` have arrived,
    and BodyTooSlow when the body has not all arrived by `arrive_by` (loop time). Later
    receives (a wait for the disconnect, which may take any time) are not timed."""

    __slots__ = ("receive", "max_bytes", "arrive_by", "deadline", "received", "arrived")

    def __init__(
        self, receive: Receive, *, max_bytes: int, arrive_by: float, deadline: Deadline
    ) -> None:
        self.receive = receive
        self.max_bytes = max_bytes
        self.arrive_by = arrive_by
        self.deadline = deadline
        self.received = 0
        self.arrived = False

    async def __call__(self) -> Message:
        if self.arrived:
            return await self.receive()
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            async with asyncio.timeout_at(self.arrive_by):
                message = await self.receive()
        except TimeoutError:
            raise BodyTooSlow from None
        if message["type"] != "http.request":  # a disconnect: nothing more will arrive
            self.arrived = True
            return message
        self.deadline.extend(loop.time() - started)  # the client's time, not a dependency's
        self.received += len(message.get("body", b""))
        if self.received > self.max_bytes:
            raise BodyTooLarge
        self.arrived = not message.get("more_body", False)
        return message


def declared_size(headers: Mapping[bytes, bytes]) -> int:
    """The body size the request's Content-Length declares; 0 when it declares none."""
    declared = headers.get(b"content-length", b"")
    if not declared.isdigit():
        return 0
    # More digits than any size needs: too large (and int() refuses over 4,300 digits).
    return int(declared) if len(declared) <= 18 else 10**18


async def refuse_too_large(send: Send, max_bytes: int) -> None:
    message = f"request body is larger than {max_bytes} bytes; send less per request"
    await send_json(send, 413, error_body(message, "PAYLOAD_TOO_LARGE"))


async def refuse_too_slow(send: Send, seconds: float) -> None:
    """408, and the connection closed: the rest of the body may still be on its way."""
    message = f"the request body did not all arrive within {seconds:g} s"
    body = error_body(message, "REQUEST_TIMEOUT")
    await send_json(send, 408, body, [(b"connection", b"close")])
