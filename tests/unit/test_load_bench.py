"""The load benchmark's bookkeeping: the operation mix follows its weights and its seed, and
the summary separates search from the rest, counts errors and computes the ratios and
targets from what was measured."""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter

import pytest

from bench._common import AsyncGraphQLClient
from bench._load_mix import HOT_QUERIES, SEARCH, WEIGHTS, Mix, Seeded
from bench._load_report import ratios_of, targets
from bench._load_run import Tally, rows_of, send

QUESTIONS = [f"question {n}?" for n in range(100)]


def seeded() -> Seeded:
    ids = {
        kind: [f"{kind}-{n}" for n in range(5)] for kind in ("plan", "asset", "variant", "event")
    }
    return Seeded(
        ids, memories=10, threads=["t0", "t1"], turns=["hello", "bye"], questions=QUESTIONS
    )


def test_the_mix_follows_its_weights_and_its_seed() -> None:
    mix = Mix(seeded(), 3)
    stream = [mix.next() for _ in range(20_000)]
    counts = Counter(operation for operation, _, _ in stream)
    for operation, weight in WEIGHTS.items():
        assert abs(counts[operation] / len(stream) - weight / 100) < 0.015, operation
    again = Mix(seeded(), 3)
    assert [again.next()[:2] for _ in range(50)] == [request[:2] for request in stream[:50]]
    other = Mix(seeded(), 4)
    assert [other.next()[0] for _ in range(50)] != [request[0] for request in stream[:50]]


def test_search_texts_repeat_a_few_and_spread_over_the_rest() -> None:
    mix = Mix(seeded(), 0)
    texts = [
        variables["input"]["text"]
        for _, document, variables in (mix.next() for _ in range(20_000))
        if document == SEARCH
    ]
    hot = sum(text in QUESTIONS[:HOT_QUERIES] for text in texts) / len(texts)
    assert 0.3 < hot < 0.45  # the hot share plus the hot questions' turn in the pool
    assert len(set(texts)) == len(QUESTIONS)


def test_creates_append_to_the_clients_own_thread() -> None:
    mix = Mix(seeded(), 1)
    threads = {
        variables["input"]["threadId"]
        for _, _, variables in (mix.next() for _ in range(2_000))
        if "threadId" in variables.get("input", {})
    }
    assert threads == {"t1"}


def tally(ms: dict[str, list[float]], errors: dict[str, int], window_s: float) -> Tally:
    result = Tally(window_s=window_s)
    for operation, values in ms.items():
        for n, value in enumerate(values):
            result.add(operation, value, "HTTP 500" if n < errors.get(operation, 0) else None)
    return result


def test_rows_keep_search_apart_and_count_errors() -> None:
    measured = tally(
        {"search": [400.0, 900.0], "recall": [5.0] * 197 + [250.0] * 3, "list": [10.0]},
        {"recall": 2},
        window_s=10.0,
    )
    rows = rows_of(measured, "1p 8c")
    assert rows["1p 8c: search"]["runs"] == 2 and rows["1p 8c: search"]["p99_ms"] == 900.0
    assert rows["1p 8c: non-search"]["runs"] == 201
    assert rows["1p 8c: non-search"]["p99_ms"] == 250.0
    assert rows["1p 8c: non-search"]["errors"] == 2 and rows["1p 8c: recall"]["errors"] == 2
    assert rows["1p 8c: all"]["requests_per_s"] == 20.3
    assert "1p 8c: remember" not in rows
    assert measured.examples == {"recall": ["HTTP 500", "HTTP 500"]}


def test_ratios_and_targets_come_from_the_levels() -> None:
    args = argparse.Namespace(processes=[1, 2], clients=[8, 32])
    rows = {}
    for tag, seconds, slow in (("1p 8c", 1.0, 50.0), ("1p 32c", 2.0, 150.0)):
        rows |= rows_of(tally({"list": [slow] * 90, "search": [800.0] * 10}, {}, seconds), tag)
    for tag, seconds in (("2p 8c", 0.5), ("2p 32c", 0.8)):
        rows |= rows_of(tally({"list": [1.0] * 100}, {"list": 1}, seconds), tag)
    assert ratios_of(rows, args) == {
        "8 clients: 2p/1p requests/s": 2.0,
        "32 clients: 2p/1p requests/s": 2.5,
    }
    met = targets(rows, args)
    assert met["level"] == "1p 32c" and met["non_search_p99_ms"] == 150.0
    assert not met["non-search p99 <= 100 ms"]
    assert met["search p99 <= 1 s"] and met["no errors"]


async def answering(body: bytes, status: str = "200 OK") -> tuple[asyncio.Server, int]:
    """A loopback server answering every request once with `body`, then closing."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        head = f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        writer.write(head + body)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        ("200 OK", b'{"data": {"x": 1}}', None),
        ("200 OK", b'{"data": null, "errors": [{"message": "boom"}]}', "HTTP 200: "),
        ("503 Service Unavailable", b'{"errors": [{"message": "down"}]}', "HTTP 503: "),
        ("200 OK", b"not json", "no answer (JSONDecodeError"),
    ],
)
def test_send_tells_clean_answers_from_errors(
    status: str, body: bytes, expected: str | None
) -> None:
    async def run() -> str | None:
        server, port = await answering(body, status)
        client = AsyncGraphQLClient(port, "secret")
        try:
            return await send(client, "{ x }", {})
        finally:
            await client.close()
            server.close()

    error = asyncio.run(run())
    assert error == expected if expected is None else (error or "").startswith(expected)
