"""uvicorn's httptools protocol with a request-header timeout, and JSON for its own refusals.

uvicorn waits indefinitely for the headers of a request (the first on a connection, or the next
on a kept-alive one): a client that sends a few bytes and stalls holds the connection. Here a
connection whose headers have not all arrived within the limit is answered 408 and closed.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.middleware import error_body


def _raw_response(status_line: bytes, body: dict[str, Any]) -> bytes:
    payload = json.dumps(body).encode()
    head = [
        status_line,
        b"content-type: application/json",
        b"content-length: " + str(len(payload)).encode(),
        b"connection: close",
    ]
    return b"\r\n".join(head) + b"\r\n\r\n" + payload


class HeaderTimeoutProtocol(HttpToolsProtocol):
    header_timeout_s: float = 10.0  # set per server by `header_timeout_protocol`

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        """A request uvicorn cannot parse: its answer, in JSON like every other refusal."""
        body = error_body(f"{msg} Send an HTTP/1.1 request.", "BAD_REQUEST")
        self.transport.write(_raw_response(b"HTTP/1.1 400 Bad Request", body))
        self.transport.close()

    def _arm(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self.header_timeout_s, self._too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _too_slow(self) -> None:
        self._header_timer = None
        if self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.response_complete:  # else a response is being sent
            message = f"the request headers did not all arrive within {self.header_timeout_s:g} s"
            body = error_body(message, "REQUEST_TIMEOUT")
            self.transport.write(_raw_response(b"HTTP/1.1 408 Request Timeout", body))
        self.transport.close()


def header_timeout_protocol(seconds: float) -> type[HeaderTimeoutProtocol]:
    return type("HeaderTimeoutProtocol", (HeaderTimeoutProtocol,), {"header_timeout_s": seconds})
