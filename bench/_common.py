"""Shared benchmark plumbing: timing, a printed table and a JSON report with machine facts."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import httpx

RESULTS = Path(__file__).resolve().parent / "results"


def timed(fn: Callable[[], Any], *, runs: int, warmup: int, label: str) -> list[float]:
    """Milliseconds per call after `warmup` untimed calls, with a progress line on stderr."""
    for _ in range(warmup):
        fn()
    samples = []
    for n in range(runs):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
        if (n + 1) % max(1, runs // 10) == 0:
            print(f"\r  {label}: {n + 1}/{runs}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return samples


def timed_rounds(
    cases: dict[str, Callable[[], Any]], *, runs: int, warmup: int, label: str
) -> dict[str, list[float]]:
    """Milliseconds per call of every case, the cases taking turns call by call, so that a
    busy moment on a shared machine hits all of them alike and ratios stay comparable.

    Each round takes the cases in a new (seeded) random order: in a fixed order, a case that
    follows the same read done another way (GraphQL, then its Cypher baseline) always finds
    Neo4j and the CPU caches warm for that read, and the first of the two always pays for it.
    """
    for fn in cases.values():
        for _ in range(warmup):
            fn()
    samples: dict[str, list[float]] = {name: [] for name in cases}
    order = list(cases.items())
    shuffle = random.Random(runs).shuffle
    for n in range(runs):
        shuffle(order)
        for name, fn in order:
            started = time.perf_counter()
            fn()
            samples[name].append((time.perf_counter() - started) * 1000)
        if (n + 1) % max(1, runs // 10) == 0:
            print(f"\r  {label}: {n + 1}/{runs}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return samples


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "runs": len(samples),
        "median_ms": round(statistics.median(ordered), 3),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 3),
        "mean_ms": round(statistics.fmean(ordered), 3),
    }


def machine() -> dict[str, Any]:
    return {
        "platform": platform.platform(),
        "processor": _cpu_model(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
    }


def _cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


class GraphQLClient:
    """POST /graphql over one keep-alive connection of the standard library's http.client.

    A client this thin costs about 0.1 ms a request on this machine, where httpx costs about
    1.3 ms; a benchmark of the service should not charge the client library's time to it.
    """

    def __init__(self, port: int, secret: str) -> None:
        self._connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self._headers = {"Authorization": f"Bearer {secret}", "Content-Type": "application/json"}

    def post(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        body = json.dumps({"query": query, "variables": variables or {}})
        self._connection.request("POST", "/graphql", body=body, headers=self._headers)
        response = self._connection.getresponse()
        answer: dict[str, Any] = json.loads(response.read())
        if response.status != 200 or "errors" in answer:
            raise RuntimeError(f"HTTP {response.status}: {json.dumps(answer)[:500]}")
        return answer

    def get(self, path: str) -> bytes:
        self._connection.request("GET", path, headers=self._headers)
        response = self._connection.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"GET {path}: HTTP {response.status}")
        return data

    def close(self) -> None:
        self._connection.close()


class AsyncGraphQLClient:
    """GraphQLClient for asyncio: POST /graphql over one keep-alive connection, the response
    read by its Content-Length (what the API always sends). For throughput at several requests
    in flight, one client per worker."""

    def __init__(self, port: int, secret: str) -> None:
        self.port = port
        self._head = (
            "POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {secret}\r\n"
        ).encode()
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def post(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        status, answer = await self.exchange(query, variables)
        if status != 200 or "errors" in answer:
            raise RuntimeError(f"HTTP {status}: {json.dumps(answer)[:500]}")
        return answer

    async def exchange(
        self, query: str, variables: dict[str, Any] | None = None
    ) -> tuple[int, dict[str, Any]]:
        """The HTTP status and JSON body, whatever they say (bench load counts the errors)."""
        if self._streams is None:
            self._streams = await asyncio.open_connection("127.0.0.1", self.port)
        reader, writer = self._streams
        body = json.dumps({"query": query, "variables": variables or {}}).encode()
        writer.write(self._head + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        status = int((await reader.readline()).split()[1])
        length = 0
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        answer: dict[str, Any] = json.loads(await reader.readexactly(length))
        return status, answer

    async def close(self) -> None:
        if self._streams is not None:
            self._streams[1].close()
            await self._streams[1].wait_closed()


def free_port() -> int:
    """A loopback port nobody listens on (other benchmarks may serve on their defaults)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve_api(port: int, *, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """The API as its own process (as in production), answering on `port` once this returns;
    `env`: settings of its own (AGENTMEM_...)."""
    repo = Path(__file__).resolve().parents[1]
    env = (
        os.environ | {"AGENTMEM_API_PORT": str(port), "AGENTMEM_LOG_LEVEL": "WARNING"} | (env or {})
    )
    server = subprocess.Popen([sys.executable, "-m", "app", "serve"], cwd=repo, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            time.sleep(0.2)
    server.terminate()
    raise RuntimeError(f"the API did not answer on port {port} within 60 s")


@contextmanager
def serving(port: int, *, env: dict[str, str] | None = None) -> Iterator[None]:
    """serve_api for the duration of a `with` block: the API stops at its end."""
    server = serve_api(port, env=env)
    try:
        yield
    finally:
        server.terminate()
        server.wait(timeout=30)


def versions(neo4j_server: str) -> dict[str, str]:
    packages = ["neo4j", "strawberry-graphql", "starlette", "uvicorn", "minio"]
    return {"neo4j_server": neo4j_server} | {p: metadata.version(p) for p in packages}


def report(
    name: str,
    *,
    sizes: dict[str, Any],
    rows: dict[str, dict[str, float]],
    ratios: dict[str, float],
    neo4j_server: str,
    extra: dict[str, Any] | None = None,
) -> Path:
    width = max(len(k) for k in rows) + 2
    print(f"\n{name}")
    print(f"{'case'.ljust(width)}{'runs':>6}{'median ms':>12}{'p99 ms':>10}")
    for case, stats in rows.items():
        print(
            f"{case.ljust(width)}{stats['runs']:>6}{stats['median_ms']:>12.3f}{stats['p99_ms']:>10.3f}"
        )
    for ratio, value in ratios.items():
        print(f"ratio {ratio}: {value:.2f}")
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    document = {
        "benchmark": name,
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "versions": versions(neo4j_server),
        "sizes": sizes,
        "results": rows,
        "ratios": ratios,
    } | (extra or {})
    path.write_text(json.dumps(document, indent=2) + "\n")
    print(f"wrote {path}")
    return path
