"""The bounds on a request's head (app/web/http_protocol.py): the header timeout with
pipelined requests (review E3: the time the server spends answering is not the client's, and an
answer is never cut off), and the size of the URL and the headers (second review E-1). A real
uvicorn server with the protocol, serving a small app on a loopback port."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from starlette.types import Receive, Scope, Send

from app.web.http_protocol import edge_protocol

LIMIT_S = 1.0
SLOW_S = 2.0
MAX_HEAD = 16_384


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    """/slow answers after SLOW_S (longer than the header limit), anything else at once, with
    its path, or for a POST the size of its body."""
    if scope["path"] == "/slow":
        await asyncio.sleep(SLOW_S)
    body = scope["path"].encode()
    if scope["method"] == "POST":
        size, more = 0, True
        while more:
            message = await receive()
            size, more = size + len(message.get("body", b"")), message.get("more_body", False)
        body = str(size).encode()
    headers = [(b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture(scope="module")
def address() -> Iterator[tuple[str, int]]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        app,
        http=edge_protocol(header_timeout_s=LIMIT_S, max_head_bytes=MAX_HEAD),
        lifespan="off",
        log_level="warning",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    yield listener.getsockname()
    server.should_exit = True
    thread.join(timeout=10)


def _exchange(address: tuple[str, int], *parts: tuple[float, bytes]) -> bytes:
    """Sends each part at its time (seconds from the start), then reads until the server
    closes the connection."""
    started = time.monotonic()
    with socket.create_connection(address, timeout=SLOW_S * 5) as sock:
        for at, data in parts:
            time.sleep(max(0.0, started + at - time.monotonic()))
            sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _statuses(received: bytes) -> list[bytes]:
    return re.findall(rb"HTTP/1\.1 (\d{3}) ", received)


SLOW = b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"
FAST = b"GET /fast HTTP/1.1\r\nHost: x\r\n\r\n"
FAST_CLOSE = b"GET /fast HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"


def test_an_answer_is_sent_whole_before_a_stalled_pipelined_request_is_cut_off(
    address: tuple[str, int],
) -> None:
    received = _exchange(address, (0, SLOW + FAST[:20]))
    assert _statuses(received) == [b"200", b"408"]
    assert b"\r\n\r\n/slow" in received and b'"code":"REQUEST_TIMEOUT"' in received


def test_requests_queued_behind_a_slow_answer_are_all_answered(address: tuple[str, int]) -> None:
    received = _exchange(address, (0, SLOW + FAST + FAST[:20]))
    assert _statuses(received) == [b"200", b"200", b"408"]
    assert received.index(b"/slow") < received.index(b"/fast")


def test_a_pipelined_request_gets_the_whole_limit_after_the_answer(
    address: tuple[str, int],
) -> None:
    """Begun at 0 s, completed at SLOW_S + 0.6 * LIMIT_S: more than the limit after it began,
    less after the answer before it was sent."""
    rest = FAST[20:] + b"GET /fast HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    received = _exchange(address, (0, SLOW + FAST[:20]), (SLOW_S + 0.6 * LIMIT_S, rest))
    assert _statuses(received) == [b"200", b"200", b"200"]


def _refusal(received: bytes) -> tuple[bytes, str]:
    head, body = received.split(b"\r\n\r\n", 1)
    assert b"content-type: application/json" in head and b"connection: close" in head
    error = json.loads(body)["errors"][0]
    assert error["message"]
    return head.split(b" ")[1], error["extensions"]["code"]


def _header_lines(count: int, size: int) -> bytes:
    return b"".join(b"X-H%d: %s\r\n" % (n, b"v" * size) for n in range(count))


@pytest.mark.parametrize(
    "head",
    [
        b"GET /" + b"u" * (MAX_HEAD + 1) + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /" + b"u" * (8 * MAX_HEAD) + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    ],
    ids=["just over", "eight times"],
)
def test_a_url_over_the_limit_is_answered_414(address: tuple[str, int], head: bytes) -> None:
    assert _refusal(_exchange(address, (0, head))) == (b"414", "BAD_REQUEST")


@pytest.mark.parametrize(
    "headers",
    [
        b"X-Big: " + b"v" * (MAX_HEAD + 1) + b"\r\n",  # one header
        _header_lines(MAX_HEAD // 16, 16),  # many small ones
        b"X-Big: " + b"v" * (8 * MAX_HEAD) + b"\r\n",  # still arriving when refused
    ],
    ids=["one header", "many headers", "eight times"],
)
def test_headers_over_the_limit_are_answered_431(address: tuple[str, int], headers: bytes) -> None:
    head = b"GET / HTTP/1.1\r\nHost: x\r\n" + headers + b"\r\n"
    assert _refusal(_exchange(address, (0, head))) == (b"431", "BAD_REQUEST")


def test_a_header_sent_in_pieces_is_measured_while_it_arrives(address: tuple[str, int]) -> None:
    """No piece completes a header: only the bytes read so far show the head is too large."""
    piece = b"v" * (MAX_HEAD // 4)
    parts = [(0.0, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: ")]
    parts += [(0.05 * n, piece) for n in range(1, 7)]
    started = time.monotonic()
    received = _exchange(address, *parts)
    assert _refusal(received) == (b"431", "BAD_REQUEST")
    assert time.monotonic() - started < LIMIT_S  # refused on size, not on time


def test_heads_within_the_limit_and_large_bodies_are_served(address: tuple[str, int]) -> None:
    """A head just within the limit, and bodies (which are not part of the head) many times
    the limit, pipelined on one connection in one send."""
    url = b"/" + b"u" * (MAX_HEAD // 2)
    near_limit = b"GET " + url + b" HTTP/1.1\r\nHost: x\r\n" + _header_lines(7, 900) + b"\r\n"
    assert len(near_limit) < MAX_HEAD
    body = b"b" * (4 * MAX_HEAD)
    post = b"POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    last = b"GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    received = _exchange(address, (0, near_limit + post + post + last))
    assert _statuses(received) == [b"200"] * 4
    assert received.count(b"\r\n\r\n%d" % len(body)) == 2 and received.endswith(b"/last")


def test_a_refused_head_waits_for_the_answer_before_it(address: tuple[str, int]) -> None:
    too_large = b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"v" * (2 * MAX_HEAD) + b"\r\n\r\n"
    received = _exchange(address, (0, SLOW), (0.2, too_large))
    assert _statuses(received) == [b"200", b"431"]
    assert b"\r\n\r\n/slow" in received


def test_a_huge_url_is_refused_at_once_while_others_are_served(
    address: tuple[str, int],
) -> None:
    """Second review E-1: uvicorn appended each piece of the URL to the last (a 32 MB URL held
    the event loop 6 s). Now the server stops reading it at the limit."""
    huge = b"GET /" + b"u" * 32_000_000
    failures: list[BaseException] = []

    def attack() -> None:
        try:
            with socket.create_connection(address, timeout=10) as sock:
                sock.sendall(huge)
        except OSError as error:  # the server closed the connection: expected
            failures.append(error)

    attacker = threading.Thread(target=attack)
    started = time.monotonic()
    attacker.start()
    latencies = []
    while attacker.is_alive() and time.monotonic() - started < 10:
        asked = time.monotonic()
        assert _statuses(_exchange(address, (0, FAST_CLOSE))) == [b"200"]
        latencies.append(time.monotonic() - asked)
    attacker.join(timeout=10)
    assert failures and not attacker.is_alive()  # cut off, not read to the end
    assert max(latencies, default=0.0) < 1.0
