"""The load benchmark's summary: a table of the levels (requests/s, errors, p50, the p99 of
non-search and of search requests), the throughput ratios between process counts, and the
targets checked."""

from __future__ import annotations

import argparse
from typing import Any

TARGET_CLIENTS = 32
TARGET_NON_SEARCH_P99_MS = 100.0
TARGET_SEARCH_P99_MS = 1000.0


def level(processes: int, clients: int) -> str:
    return f"{processes}p {clients}c"


def print_levels(rows: dict[str, dict[str, float]], args: argparse.Namespace) -> None:
    print(
        f"\n{'level':<10}{'req/s':>8}{'errors':>8}{'p50 ms':>9}{'p99 non-search':>16}"
        f"{'p99 search':>12}"
    )
    for processes in args.processes:
        for clients in args.clients:
            tag = level(processes, clients)
            every, other = rows[f"{tag}: all"], rows.get(f"{tag}: non-search", {})
            search = rows.get(f"{tag}: search", {})
            print(
                f"{tag:<10}{every['requests_per_s']:>8.1f}{every['errors']:>8.0f}"
                f"{every['median_ms']:>9.1f}{other.get('p99_ms', 0):>16.1f}"
                f"{search.get('p99_ms', 0):>12.1f}"
            )


def ratios_of(rows: dict[str, dict[str, float]], args: argparse.Namespace) -> dict[str, float]:
    """Throughput of each process count over one process's, per level of clients."""
    base = args.processes[0]
    ratios = {}
    for processes in args.processes[1:]:
        for clients in args.clients:
            top = rows[f"{level(processes, clients)}: all"]["requests_per_s"]
            bottom = rows[f"{level(base, clients)}: all"]["requests_per_s"]
            ratios[f"{clients} clients: {processes}p/{base}p requests/s"] = round(top / bottom, 2)
    return ratios


def targets(rows: dict[str, dict[str, float]], args: argparse.Namespace) -> dict[str, Any]:
    """The targets at 32 clients on one process (or the nearest level measured)."""
    processes = args.processes[0]
    clients = min(args.clients, key=lambda n: abs(n - TARGET_CLIENTS))
    tag = level(processes, clients)
    other = rows.get(f"{tag}: non-search", {}).get("p99_ms", 0.0)
    search = rows.get(f"{tag}: search", {}).get("p99_ms", 0.0)
    errors = rows[f"{tag}: all"]["errors"]
    met = {
        "non-search p99 <= 100 ms": other <= TARGET_NON_SEARCH_P99_MS,
        "search p99 <= 1 s": search <= TARGET_SEARCH_P99_MS,
        "no errors": errors == 0,
    }
    for name, ok in met.items():
        print(f"target at {tag}: {name}: {'met' if ok else 'MISSED'}")
    return {"level": tag, "non_search_p99_ms": other, "search_p99_ms": search} | met
