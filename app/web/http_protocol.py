"""uvicorn's httptools protocol with bounds on a request's head (its request line and headers):
the time it may take to arrive and its size. Its own refusals are JSON, like every other.

Time: uvicorn waits indefinitely for the headers of a request (the first on a connection, or the
next on a kept-alive one): a client that sends a few bytes and stalls holds the connection. Here
a connection whose headers have not all arrived within the limit is answered 408 and closed.
Time the server spends answering an earlier request on the connection is not the client's: a
pipelined request begun meanwhile (whose bytes uvicorn stops reading until that answer is sent)
gets the whole limit again once the answer is complete, and that answer is never cut off.

Size: uvicorn keeps the whole URL (appending each piece to the last: quadratic, 6 s of event
loop for a 32 MB URL) and httptools the whole of each header, however long. Here a URL over the
limit is answered 414 and a head over it 431, and the connection closed, as soon as that many
bytes have arrived. A head's size is what is certainly in it: the URL and the complete headers
(measured by the parser's callbacks), or every byte of the chunks read while it was incomplete
(a header still arriving is only seen this way), whichever is more. So no head within the limit
is refused, and none is kept beyond the limit and one read (at most 256 KiB).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.api.edge.asgi import error_body, raw_json_response

log = logging.getLogger("app.http")
URL_TOO_LONG = b"HTTP/1.1 414 URI Too Long"
HEAD_TOO_LARGE = b"HTTP/1.1 431 Request Header Fields Too Large"
# After a refusal, what the client still sends is read and dropped for this long, up to this
# many bytes, before the connection is closed (see `_send_refusal`).
LINGER_S = 1.0
LINGER_BYTES = 1_048_576


class HeadRefused(Exception):
    """Raised from a parser callback: it stops httptools parsing the rest of what it was fed."""


class EdgeProtocol(HttpToolsProtocol):
    header_timeout_s: float = 10.0  # both set per server by `edge_protocol`
    max_head_bytes: int = 65_536

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None
        self._refusal: bytes | None = None
        self._heads = 0  # requests begun on this connection
        self._in_head = False
        self._url_bytes = self._header_bytes = self._head_chunk_bytes = 0
        self._linger_bytes = LINGER_BYTES

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._refusal is not None:  # refused: the rest is read only to be dropped
            self._linger_bytes -= len(data)
            if self._linger_bytes < 0:
                self.transport.close()
            return
        head = self._heads if self._in_head else None  # a head begun in an earlier chunk
        super().data_received(data)
        if head == self._heads and self._in_head and self._refusal is None:
            self._head_chunk_bytes += len(data)  # every byte of it belongs to that head
            if self._head_chunk_bytes > self.max_head_bytes:
                self._refuse(HEAD_TOO_LARGE, self._head_message())
                self._send_refusal()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._heads += 1
        self._in_head = True
        self._url_bytes = self._header_bytes = self._head_chunk_bytes = 0
        self._arm()

    def on_url(self, url: bytes) -> None:
        self._url_bytes += len(url)
        if self._url_bytes > self.max_head_bytes:
            message = f"the URL is longer than {self.max_head_bytes} bytes; send a shorter one"
            raise self._refuse(URL_TOO_LONG, message)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_bytes += len(name) + len(value) + 4  # ": " and CRLF
        if self._url_bytes + self._header_bytes > self.max_head_bytes:
            raise self._refuse(HEAD_TOO_LARGE, self._head_message())
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._disarm()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._refusal is not None:  # waited for this answer (and any pipelined before it)
            self._send_refusal()
        elif self._header_timer is not None:  # a request begun while this answer was sent
            self._disarm()
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        """A request uvicorn cannot parse, or a head refused by a parser callback here."""
        if self._refusal is None:
            self._refuse(b"HTTP/1.1 400 Bad Request", f"{msg} Send an HTTP/1.1 request.")
        self._send_refusal()

    def _unsupported_upgrade_warning(self) -> None:
        # uvicorn's warning suggests installing a WebSocket library; the API serves no
        # WebSocket (app/web/serve.py), and the request was answered as plain HTTP.
        log.debug("an upgrade request was answered as plain HTTP")

    def _head_message(self) -> str:
        return (
            f"the request line and headers are larger than {self.max_head_bytes} bytes; "
            "send fewer or shorter headers"
        )

    def _refuse(self, status_line: bytes, message: str, code: str = "BAD_REQUEST") -> HeadRefused:
        """Notes the refusal `_send_refusal` sends; the exception stops the parser, if raised
        from one of its callbacks."""
        self._refusal = raw_json_response(status_line, error_body(message, code))
        return HeadRefused()

    def _send_refusal(self) -> None:
        """Sends the refusal in JSON and closes the connection; after the answers to the
        requests before it on the connection, which are never cut off (reading waits)."""
        if self._answering():
            self.flow.pause_reading()
            return
        if self.transport.is_closing():
            return
        self._disarm()
        self.transport.write(self._refusal or b"")
        if not self.transport.can_write_eof():
            self.transport.close()
            return
        # A lingering close: closed with unread bytes, the socket would reset the connection,
        # and a client still sending (a long URL) could lose the answer before reading it.
        self.transport.write_eof()
        self.flow.resume_reading()
        self.loop.call_later(LINGER_S, self.transport.close)

    def _arm(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self.header_timeout_s, self._too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _answering(self) -> bool:
        """Whether a response is being produced or sent, or a pipelined request waits for one."""
        return bool(self.pipeline) or not (self.cycle is None or self.cycle.response_complete)

    def _too_slow(self) -> None:
        self._header_timer = None
        if self.transport.is_closing():
            return
        if self._answering():  # the server's time, not the client's: wait for the answer
            self._arm()
            return
        message = f"the request headers did not all arrive within {self.header_timeout_s:g} s"
        self._refuse(b"HTTP/1.1 408 Request Timeout", message, "REQUEST_TIMEOUT")
        self._send_refusal()


def edge_protocol(*, header_timeout_s: float, max_head_bytes: int) -> type[EdgeProtocol]:
    bounds = {"header_timeout_s": header_timeout_s, "max_head_bytes": max_head_bytes}
    return type("EdgeProtocol", (EdgeProtocol,), bounds)
