"""Mem0 OSS 2.2.1 measured side by side with our service on a LoCoMo file (issue 19): the same
loader and recall metric as `bench locomo`, search latency per `memory.search` call, in two
set-ups: one shared collection with a Mem0 user id per conversation, and one collection per
conversation. Runs in the product environment; Mem0 itself runs in its own environment
(bench/peers/mem0_env.py, built on first use, ~1 minute) as a subprocess per set-up
(bench/peers/mem0_locomo.py says exactly what is ingested and how it is searched).

    from bench.mem0_peer import measure_mem0
    figures = measure_mem0(Path("locomo-dev.json"), [5, 10, 25])

or on its own: bash app/services/env.sh --exec python bench/mem0_peer.py [--data F] [--out F]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.peers.mem0_env import (  # noqa: E402
    Mem0EnvError,
    ensure_env,
    run_streamed,
    runtime_env,
)

RUNNER = Path(__file__).resolve().parent / "peers" / "mem0_locomo.py"
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "bench" / "locomo-dev.json"
SETUPS = ("shared", "per-conversation")
SYSTEM = "mem0 2.2.1"

__all__ = ["Mem0EnvError", "Mem0PeerError", "measure_mem0", "table"]


class Mem0PeerError(RuntimeError):
    """A Mem0 run failed; the message has the command, its exit code and its last output."""


def measure_mem0(
    data: Path,
    ks: list[int],
    setups: Sequence[str] = SETUPS,
    *,
    nice: int | None = None,
    threads: int = 1,
) -> dict[str, Any]:
    """Mem0's figures on `data`: {"system", "env": {...}, "setups": {setup: the runner's JSON
    (recall per category, search_latency p50/p99/mean/n in ms, ingest, checks, versions) plus
    wall_s}}. Builds or reuses the Mem0 environment first: raises Mem0EnvError (with the step
    that failed and its output) when it cannot be built, Mem0PeerError when a run fails.
    `nice` runs Mem0 at that niceness; `threads` is torch's thread count (the product's
    embedding_threads, default 1)."""
    unknown = [setup for setup in setups if setup not in SETUPS]
    if unknown:
        raise ValueError(f"unknown set-ups {unknown}; choose from {SETUPS}")
    data = data.resolve()
    if not data.is_file():
        raise FileNotFoundError(f"no LoCoMo file at {data}")
    started = time.perf_counter()
    env = ensure_env()
    built = json.loads((env.root / ".complete").read_text())
    result: dict[str, Any] = {
        "system": SYSTEM,
        "env": {
            "path": str(env.root),
            "borrowed_site_packages": str(env.borrowed),
            "build_s": built.get("build_s"),
            "ensure_s": round(time.perf_counter() - started, 1),
        },
        "setups": {},
    }
    prefix = ["nice", "-n", str(nice)] if nice else []
    with tempfile.TemporaryDirectory(prefix="mem0-peer-") as scratch:
        for setup in setups:
            out = Path(scratch) / f"{setup}.json"
            command = [*prefix, str(env.python), str(RUNNER), "--data", str(data)]
            command += ["--k", *map(str, ks), "--setup", setup, "--out", str(out)]
            command += ["--threads", str(threads)]
            print(f"mem0 peer: {setup} set-up", file=sys.stderr, flush=True)
            began = time.perf_counter()
            run_streamed(command, extra=runtime_env(env), error=Mem0PeerError)
            figures = json.loads(out.read_text())
            figures["wall_s"] = round(time.perf_counter() - began, 1)
            result["setups"][setup] = figures
    return result


def table(result: dict[str, Any], ks: Sequence[int]) -> str:
    """Rows in the layout of `bench locomo`'s recall table, plus search latency."""
    lines = [f"{'system':<28}{'group':<9}{'n':>5}" + "".join(f"{f'r@{k}':>8}" for k in ks)]
    for setup, figures in result["setups"].items():
        name = f"{result['system']} {setup}"
        for group, row in figures["recall"].items():
            cells = "".join(f"{row[f'r@{k}']:>8.3f}" for k in ks)
            lines.append(f"{name:<28}{group:<9}{row['questions']:>5}{cells}")
        latency = figures["search_latency"]
        lines.append(
            f"{name:<28}search p50 {latency['p50_ms']} ms, p99 {latency['p99_ms']} ms "
            f"(n={latency['n']}); ingest {figures['ingest']['seconds']} s, "
            f"run {figures['wall_s']} s"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description="Mem0 OSS on a LoCoMo file, both set-ups")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--k", type=int, nargs="+", default=[5, 10, 25])
    parser.add_argument("--setup", nargs="+", choices=SETUPS, default=list(SETUPS))
    parser.add_argument("--nice", type=int, default=None)
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()
    ks = sorted(set(args.k))
    try:
        result = measure_mem0(args.data, ks, args.setup, nice=args.nice)
    except (Mem0EnvError, Mem0PeerError) as error:
        sys.exit(f"{type(error).__name__}: {error}")
    print(table(result, ks))
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
