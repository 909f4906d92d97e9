"""Benchmark: acknowledged writes through faults. A write load from several client threads
(`remember` with content in S3, `createPlan`, `appendConversationEvent` with externalRef and
text in S3) runs while the API process is killed (SIGKILL) and restarted, Neo4j is killed
(SIGKILL) and restarted, and the S3 server is stopped and restarted. Afterwards every
acknowledged write is read back from Neo4j and S3.

Prints and writes to bench/results/faults.json: acknowledged writes lost (must be 0), half-written
ones (node not as sent, or its object missing or changed) and dangling references (a node
pointing at a missing object), both must be 0; the answers during each fault by HTTP status
and code, with their latency; the time to recover from each fault.

Run: bash app/services/env.sh bench faults [--quick] [--threads 4] [--hold 20] [--steady 15]
It starts its OWN Neo4j, S3 server and API (homes under cache_dir/faults, free ports): the
servers of development and of the test suite are never touched.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from neo4j import GraphDatabase

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.settings import Settings, load_settings  # noqa: E402
from bench._common import report, summary  # noqa: E402
from bench._faults_check import reconciled, verify  # noqa: E402
from bench._faults_load import KINDS, Load, Refusal  # noqa: E402
from bench._faults_rig import Rig, rig_environment  # noqa: E402


def say(message: str) -> None:
    print(f"[faults {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def steady(load: Load, seconds: float, phase: str = "steady") -> None:
    """The load alone for `seconds`; its answers count under `phase`."""
    load.phase = phase
    acked = len(load.acks)
    time.sleep(seconds)
    say(f"{phase} {seconds:.0f} s: {len(load.acks) - acked} writes acknowledged")


def fault(
    rig: Rig,
    load: Load,
    name: str,
    *,
    stop: Callable[[], None],
    restart: Callable[[], None],
    hold: float,
) -> dict[str, Any]:
    """Stop a part, keep it down `hold` seconds, restart it; when the load recovered and when
    /readyz said ready again."""
    say(f"{name} ...")
    load.phase = name
    began = time.monotonic()
    stop()
    time.sleep(hold)
    restarting = time.monotonic()
    restart()
    restarted = time.monotonic()
    deadline = restarted + 120
    while not rig.answers("/readyz") and time.monotonic() < deadline:
        time.sleep(0.05)
    ready = time.monotonic()
    while (first := load.first_ack_after(restarted)) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    load.phase = f"after {name}"
    result = {
        "fault": name,
        "down_s": round(restarting - began, 2),
        "restart_s": round(restarted - restarting, 2),
        "readyz_after_restart_s": round(ready - restarted, 2),
        "first_ack_after_restart_s": None if first is None else round(first - restarted, 2),
        "writes_blocked_s": None if first is None else round(first - began, 2),
    }
    say(f"{name}: {result}")
    return result


def answers_by_fault(load: Load) -> list[dict[str, Any]]:
    grouped: dict[tuple[str, str], list[Refusal]] = defaultdict(list)
    for refusal in load.refusals:
        grouped[(refusal.phase, refusal.answer)].append(refusal)
    rows = []
    for (phase, answer), refusals in sorted(grouped.items()):
        ms = [refusal.ms for refusal in refusals]
        messages = sorted({refusal.message for refusal in refusals if refusal.message})
        rows.append(
            {
                "phase": phase,
                "answer": answer,
                "count": len(ms),
                "median_ms": round(statistics.median(ms), 1),
                "max_ms": round(max(ms), 1),
                "messages": messages[:3],
            }
        )
    return rows


def neo4j_version(settings: Settings) -> str:
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        records, _, _ = driver.execute_query(
            "CALL dbms.components() YIELD versions RETURN versions[0] AS v"
        )
        return str(records[0]["v"])


def print_tables(
    integrity: dict[str, Any], answers: list[dict[str, Any]], faults: list[Any]
) -> None:
    print("\nacknowledged writes")
    for name in ("acknowledged", "lost", "half_written", "dangling", "orphaned_objects"):
        print(f"  {name:<18}{integrity[name]:>8}")
    print(
        f"\n{'outage answers: phase':<34}{'answer':<34}{'count':>6}{'median ms':>11}{'max ms':>9}"
    )
    for row in answers:
        print(
            f"{row['phase']:<34}{row['answer']:<34}{row['count']:>6}"
            f"{row['median_ms']:>11.1f}{row['max_ms']:>9.1f}"
        )
        for message in row["messages"]:
            print(f"    e.g. {message[:110]}")
    print(
        f"\n{'fault':<26}{'down s':>8}{'restart s':>11}{'ready after s':>15}{'1st ack after s':>17}"
    )
    for row in faults:
        print(
            f"{row['fault']:<26}{row['down_s']:>8.1f}{row['restart_s']:>11.1f}"
            f"{row['readyz_after_restart_s']:>15.2f}"
            f"{row['first_ack_after_restart_s'] or float('nan'):>17.2f}"
        )


def run_faults(rig: Rig, load: Load, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Each fault in turn, with the load alone before and after each."""
    plan = [
        ("API killed (SIGKILL)", rig.kill_api, rig.start_api, 0.0),
        ("Neo4j killed (SIGKILL)", rig.kill_neo4j, rig.start_neo4j, args.hold),
        ("S3 stopped", rig.stop_s3, rig.start_s3, args.hold),
    ]
    steady(load, args.steady)
    faults = []
    for name, stop, restart, hold in plan:
        faults.append(fault(rig, load, name, stop=stop, restart=restart, hold=hold))
        steady(load, args.steady, f"after {name}")
    return faults


def run(args: argparse.Namespace) -> None:
    base = load_settings()
    os.environ.update(rig_environment(base))
    settings = Settings()
    rig = Rig(settings)
    try:
        say(f"starting the rig's Neo4j, S3 and API under {base.cache_dir / 'faults'} ...")
        rig.start(base, clients=args.threads)
        load = Load(rig.api_url, rig.keys, payload_bytes=args.payload_bytes)
        load.start()
        say(f"load running: {args.threads} client threads")
        faults = run_faults(rig, load, args)
        load.stop()
        say("load stopped; waiting for the API's orphan reconciliation ...")
        reconciliation = reconciled(rig.api_url)
        say(f"reconciliation (since the API restarted): {reconciliation}")
        say("reading every acknowledged write back ...")
        integrity = verify(settings, load.acks, load.client_ids)
        answers = answers_by_fault(load)
        print_tables(integrity, answers, faults)
        print(f"\norphan reconciliation (the API since its restart): {reconciliation}")
        rows = {
            f"{kind} (acknowledged)": summary([a.ms for a in load.acks if a.kind == kind])
            for kind in KINDS
        }
        sizes = {
            "threads": args.threads,
            "payload_bytes": args.payload_bytes,
            "hold_s": args.hold,
            "steady_s": args.steady,
            "dependency_timeout_s": settings.dependency_timeout_s,
        }
        extra = {
            "integrity": integrity,
            "reconciliation": reconciliation,
            "answers": answers,
            "faults": faults,
        }
        version = neo4j_version(settings)
        report("faults", sizes=sizes, rows=rows, ratios={}, neo4j_server=version, extra=extra)
    finally:
        rig.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short phases (about 2 minutes)")
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--hold", type=float, default=20.0, help="seconds a server stays down")
    parser.add_argument("--steady", type=float, default=15.0, help="seconds between faults")
    parser.add_argument("--payload-bytes", type=int, default=12_000, help="content/text size")
    args = parser.parse_args()
    logging.getLogger("neo4j").setLevel(logging.ERROR)  # planner notices of a fresh database
    if args.quick:
        args.hold, args.steady = min(args.hold, 6.0), min(args.steady, 6.0)
    run(args)


if __name__ == "__main__":
    main()
