"""The unauthenticated surface (issue 11, finding 9): slow clients are cut off by a header and a
body timeout, and keyless introspection is cached and rate-limited, on a server of their own
with short limits, while normal requests are served meanwhile."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from graphql import get_introspection_query

from app.settings import Settings
from tests.integration.conftest import new_caller, serve_in_thread

TIMEOUT_S = 1.0
PER_MINUTE = 3


@pytest.fixture(scope="module")
def strict_url(settings: Settings) -> Iterator[str]:
    strict = settings.model_copy(
        update={
            "header_timeout_s": TIMEOUT_S,
            "body_timeout_s": TIMEOUT_S,
            "keyless_introspection_per_minute": PER_MINUTE,
            "embedding_worker_in_process": False,
        }
    )
    yield from serve_in_thread(strict)


def _connect(url: str) -> socket.socket:
    parts = urlsplit(url)
    return socket.create_connection((parts.hostname, parts.port), timeout=TIMEOUT_S * 10)


def _read_until_closed(sock: socket.socket) -> tuple[float, bytes]:
    started = time.monotonic()
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return time.monotonic() - started, b"".join(chunks)


def _code(response: bytes) -> str:
    body = json.loads(response.split(b"\r\n\r\n", 1)[1])
    return str(body["errors"][0]["extensions"]["code"])


def _served_meanwhile(url: str) -> None:
    started = time.monotonic()
    assert httpx.get(f"{url}/healthz").json() == {"status": "ok"}
    assert time.monotonic() - started < TIMEOUT_S * 2  # generous: two busy cores


def test_partial_headers_are_cut_off_while_others_are_served(strict_url: str) -> None:
    with _connect(strict_url) as silent, _connect(strict_url) as partial:
        partial.sendall(b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Ty")
        _served_meanwhile(strict_url)
        waited, response = _read_until_closed(partial)
        assert waited < TIMEOUT_S * 3
        assert response.startswith(b"HTTP/1.1 408") and _code(response) == "REQUEST_TIMEOUT"
        _, nothing_sent = _read_until_closed(silent)
        assert nothing_sent.startswith(b"HTTP/1.1 408")


def test_the_next_request_on_a_kept_alive_connection_is_timed_too(strict_url: str) -> None:
    with _connect(strict_url) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        first = sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200") and first.endswith(b'{"status":"ok"}')
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHo")
        waited, response = _read_until_closed(sock)
        assert waited < TIMEOUT_S * 3 and response.startswith(b"HTTP/1.1 408")


def test_a_partial_body_gets_408_and_the_connection_closed(strict_url: str) -> None:
    with _connect(strict_url) as sock:
        head = b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        sock.sendall(head + b"Content-Length: 100\r\n\r\n" + b'{"query": "{ __sch')
        _served_meanwhile(strict_url)
        waited, response = _read_until_closed(sock)
    assert waited < TIMEOUT_S * 3
    assert response.startswith(b"HTTP/1.1 408") and b"connection: close" in response.lower()
    assert _code(response) == "REQUEST_TIMEOUT"


def test_keyless_introspection_is_answered_once_then_replayed_and_rate_limited(
    settings: Settings, strict_url: str
) -> None:
    standard = {"query": get_introspection_query(descriptions=True, specified_by_url=True)}
    with httpx.Client(base_url=strict_url, timeout=30) as client:
        timings, bodies = [], []
        for _ in range(PER_MINUTE):
            started = time.perf_counter()
            response = client.post("/graphql", json=standard)
            timings.append(time.perf_counter() - started)
            assert response.status_code == 200 and response.json()["data"]["__schema"]
            bodies.append(response.content)
        assert bodies[1] == bodies[0] == bodies[2]
        assert max(timings[1:]) < timings[0] / 3  # replayed, not built again
        limited = client.post("/graphql", json=standard)
        assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
        error = limited.json()["errors"][0]
        assert error["extensions"]["code"] == "RATE_LIMITED"
        assert error["extensions"]["retryAfterSeconds"] == int(limited.headers["retry-after"])
        keyed = new_caller(settings, strict_url)
        assert keyed.data(standard["query"])["__schema"]  # a key is not limited


def _from(address: str, url: str) -> httpx.Client:
    """A client whose connections come from another loopback address (another remote address
    to the server, with a rate-limit bucket of its own)."""
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=url, timeout=30, transport=transport)


def test_keyless_introspection_is_cached_by_document_and_builds_share_one_budget(
    strict_url: str,
) -> None:
    """Review E2: a new spelling of a cached document (spaces, comments, commas) is a cache
    hit, and distinct documents are built at most PER_MINUTE times a minute, whatever the
    addresses they come from."""
    documents = [f"query D{n} {{ __schema {{ queryType {{ name }} }} }}" for n in range(4)]
    firsts, seconds = [], []
    for n, document in enumerate(documents):  # each from an address of its own
        with _from(f"127.0.0.{10 + n}", strict_url) as client:
            firsts.append(client.post("/graphql", json={"query": document}))
            respelled = "# again\n" + document.replace(" ", " ,\n  ")
            seconds.append(client.post("/graphql", json={"query": respelled}))
    built = [n for n, answer in enumerate(firsts) if answer.status_code == 200]
    assert 1 <= len(built) <= PER_MINUTE < len(documents)
    for n in built:
        assert seconds[n].status_code == 200 and seconds[n].content == firsts[n].content
    refused = [firsts[n] for n in range(len(documents)) if n not in built]
    assert {answer.status_code for answer in refused} == {429}
    error = refused[0].json()["errors"][0]
    assert error["extensions"]["code"] == "RATE_LIMITED" and "distinct" in error["message"]
