"""The load benchmark's clients: each its own keep-alive connection and seeded operation mix,
sending one request after another for a warm-up and then a timed window, recording what every
request of the window took and whether it failed (an HTTP status other than 200, GraphQL
errors, or no answer)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from bench._common import AsyncGraphQLClient, summary
from bench._load_mix import SEARCH_OPERATIONS, WEIGHTS, Mix, Seeded

REQUEST_TIMEOUT_S = 60.0
ERROR_EXAMPLES = 3  # per operation, kept for the JSON


@dataclass
class Tally:
    """One level's requests, per operation: latencies (ms, every request of the window) and
    errors, with a few error answers as examples."""

    ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    examples: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    window_s: float = 0.0

    def add(self, operation: str, ms: float, error: str | None) -> None:
        self.ms[operation].append(ms)
        if error is not None:
            self.errors[operation] += 1
            if len(self.examples[operation]) < ERROR_EXAMPLES:
                self.examples[operation].append(error)

    @property
    def requests(self) -> int:
        return sum(len(values) for values in self.ms.values())


async def send(client: AsyncGraphQLClient, document: str, variables: dict[str, Any]) -> str | None:
    """None when answered cleanly, else what came back."""
    try:
        status, answer = await asyncio.wait_for(
            client.exchange(document, variables), REQUEST_TIMEOUT_S
        )
    except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError, IndexError) as error:
        return f"no answer ({type(error).__name__}: {error})"[:300]
    if status != 200 or answer.get("errors"):
        return f"HTTP {status}: {json.dumps(answer.get('errors'))}"[:300]
    return None


async def client_loop(
    port: int, secret: str, mix: Mix, *, measure_from: float, until: float, tally: Tally
) -> None:
    client = AsyncGraphQLClient(port, secret)
    try:
        while (started := time.perf_counter()) < until:
            operation, document, variables = mix.next()
            error = await send(client, document, variables)
            if error is not None and error.startswith("no answer"):
                await _close(client)  # the connection is in an unknown state: a new one
                client = AsyncGraphQLClient(port, secret)
            if started >= measure_from:
                tally.add(operation, (time.perf_counter() - started) * 1000, error)
    finally:
        await _close(client)


async def _close(client: AsyncGraphQLClient) -> None:
    with contextlib.suppress(OSError):  # a connection the server reset closes with an error
        await client.close()


def prime(port: int, secret: str, seeded: Seeded) -> None:
    """Every operation once on a new process: the embedder loads on its first search, which
    no level's warm-up should have to absorb."""

    async def each() -> None:
        client = AsyncGraphQLClient(port, secret)
        try:
            for operation, build in Mix(seeded, 0).builders.items():
                if error := await send(client, *build()):
                    raise SystemExit(f"{operation} failed before the load: {error}")
        finally:
            await client.close()

    asyncio.run(each())


async def run_level(
    ports: list[int], secret: str, seeded: Seeded, *, clients: int, warmup_s: float, seconds: float
) -> Tally:
    """`clients` clients spread round robin over the API processes' ports."""
    tally = Tally()
    began = time.perf_counter()
    measure_from, until = began + warmup_s, began + warmup_s + seconds
    loops = [
        client_loop(
            ports[n % len(ports)],
            secret,
            Mix(seeded, n),
            measure_from=measure_from,
            until=until,
            tally=tally,
        )
        for n in range(clients)
    ]
    progress = asyncio.create_task(_progress(tally, began, warmup_s, warmup_s + seconds))
    await asyncio.gather(*loops)
    progress.cancel()
    # Requests started in the window and answered after it count: the window lasts until the
    # last of them is answered.
    tally.window_s = time.perf_counter() - measure_from
    print(file=sys.stderr)
    return tally


async def _progress(tally: Tally, began: float, warmup_s: float, total_s: float) -> None:
    while True:
        await asyncio.sleep(1)
        elapsed = time.perf_counter() - began
        errors = sum(tally.errors.values())
        phase = "warm-up" if elapsed < warmup_s else f"{tally.requests} requests, {errors} errors"
        line = f"\r    {elapsed:4.0f}/{total_s:.0f} s: {phase}          "
        print(line, end="", file=sys.stderr, flush=True)


def rows_of(tally: Tally, prefix: str) -> dict[str, dict[str, float]]:
    """Per operation, then the search and non-search aggregates and all requests."""
    rows = {
        f"{prefix}: {op}": summary(tally.ms[op]) | {"errors": tally.errors[op]}
        for op in WEIGHTS
        if tally.ms[op]
    }
    groups = {
        "non-search": [op for op in WEIGHTS if op not in SEARCH_OPERATIONS],
        "search": sorted(SEARCH_OPERATIONS),
        "all": list(WEIGHTS),
    }
    for group, ops in groups.items():
        samples = [ms for op in ops for ms in tally.ms[op]]
        if samples:
            errors = sum(tally.errors[op] for op in ops)
            rows[f"{prefix}: {group}"] = summary(samples) | {"errors": errors}
    total = rows.get(f"{prefix}: all")
    if total is not None:
        total["requests_per_s"] = round(tally.requests / tally.window_s, 1)
    return rows
