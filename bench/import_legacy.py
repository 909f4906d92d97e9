"""Benchmark: importing legacy memory (seed 004) with `agentmem import`'s code path: N
contextual_memory rows generated into a temporary JSON-lines file, imported into a new client
(each line parsed, checked by remember's rules, MERGEd by its key, linked to its agent, in
transactions of --batch records), then imported again (every line found: nothing written),
against a baseline in the same run: the same file read and parsed, and its rows written by a
plain `UNWIND $rows AS row CREATE (r:MemoryRecord) SET r = row` in the same batches (no checks,
no key lookup) into another new client.

Run: bash app/services/env.sh bench import_legacy [--rows 100000] [--batch 500]
(local servers up). The bench clients' records are deleted at the end (--keep keeps them); the
baseline's rows are written as already indexed so no embedding worker spends time on them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.artifacts.store import open_store  # noqa: E402
from app.domain.kernel.principal import Principal  # noqa: E402
from app.domain.keys import ensure_client  # noqa: E402
from app.domain.legacy import ImportOptions, ImportReport, LegacyFormat, import_lines  # noqa: E402
from app.domain.memory import MemoryPolicy  # noqa: E402
from app.graph.executor import GraphExecutor  # noqa: E402
from app.model.enums import Role  # noqa: E402
from app.runtime import connected  # noqa: E402
from app.settings import Settings, load_settings  # noqa: E402
from bench._common import report, summary  # noqa: E402

BASELINE_CREATE = "UNWIND $rows AS row CREATE (r:MemoryRecord) SET r = row"
DELETE_BATCH = """
MATCH (r:MemoryRecord {client_id: $client_id}) WITH r LIMIT 5000
DETACH DELETE r RETURN count(*) AS deleted
"""
AGENTS = ("planner", "presence", "calendar", "weather")
WORDS = "kitchen lights music alarm lisbon flight friday dentist coffee jazz rain garden".split()


def legacy_rows(count: int, rng: random.Random) -> list[dict[str, Any]]:
    """contextual_memory rows: a sentence of context, a few fields, 20 rows per session."""
    start = datetime(2025, 1, 1, tzinfo=UTC)
    rows = []
    for i in range(count):
        text = " ".join(rng.choices(WORDS, k=12))
        rows.append(
            {
                "context_id": f"ctx-{i}",
                "session_id": f"session-{i // 20}",
                "context_data": {
                    "text": f"{text} ({i})",
                    "room": rng.choice(WORDS),
                    "turn": i % 20,
                },
                "created_at": (start + timedelta(seconds=i * 97)).isoformat(),
                "source_agent": rng.choice(AGENTS),
                "tags": rng.sample(WORDS, 2),
                "priority": rng.randint(1, 10),
            }
        )
    return rows


async def imported(
    graph: GraphExecutor, settings: Settings, client_id: str, path: Path, batch: int
) -> tuple[ImportReport, list[float]]:
    """The import's report and each batch's milliseconds (the progress callback's spacing)."""
    principal = Principal(client_id, Role.ADMIN, key_id="bench")
    marks = [(time.perf_counter(), 0)]  # (when, batches written by then)
    options = ImportOptions(
        LegacyFormat.CONTEXTUAL_MEMORY, batch=batch, policy=MemoryPolicy.of(settings)
    )
    artifacts = open_store(settings)
    try:
        with path.open(encoding="utf-8") as lines:
            done = await import_lines(
                graph,
                artifacts,
                principal=principal,
                lines=lines,
                options=options,
                progress=lambda r: marks.append((time.perf_counter(), r.batches)),
            )
    finally:
        artifacts.close()
    pairs = zip(marks, marks[1:], strict=False)
    return done, [(b - a) * 1000 for (a, before), (b, after) in pairs if after > before]


async def baseline(graph: GraphExecutor, client_id: str, path: Path, batch: int) -> list[float]:
    """The same file read, parsed and written by a plain UNWIND CREATE; each batch's ms."""
    samples, rows = [], []
    started = time.perf_counter()
    now = datetime.now(UTC)
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            data = row["context_data"]
            rows.append(
                {
                    "id": str(uuid.uuid4()),
                    "client_id": client_id,
                    "namespace": f"{row['session_id']}/context",
                    "key": f"context:{row['context_id']}",
                    "kind": "working",
                    "text": data["text"],
                    "content": json.dumps(data),
                    "tags": row["tags"],
                    "priority": row["priority"],
                    "source_agent": row["source_agent"],
                    "created_at": datetime.fromisoformat(row["created_at"]),
                    "updated_at": now,
                    "indexed_version": now,  # no embedding worker picks these up
                }
            )
            if len(rows) == batch:
                await graph.write(BASELINE_CREATE, {"rows": rows})
                samples.append((time.perf_counter() - started) * 1000)
                rows, started = [], time.perf_counter()
    if rows:
        await graph.write(BASELINE_CREATE, {"rows": rows})
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def remove(graph: GraphExecutor, client_id: str) -> None:
    while (await graph.write(DELETE_BATCH, {"client_id": client_id}))[0]["deleted"]:
        pass


async def run(settings: Settings, path: Path, args: argparse.Namespace) -> dict[str, Any]:
    async with connected(settings) as graph:
        suffix = uuid.uuid4().hex[:8]
        plain = await ensure_client(graph, name=f"bench-import-baseline-{suffix}")
        target = await ensure_client(graph, name=f"bench-import-{suffix}")
        try:
            print("baseline: plain UNWIND CREATE", file=sys.stderr)
            base_ms = await baseline(graph, plain, path, args.batch)
            print("import", file=sys.stderr)
            first, first_ms = await imported(graph, settings, target, path, args.batch)
            print("re-import (nothing new)", file=sys.stderr)
            again, again_ms = await imported(graph, settings, target, path, args.batch)
        finally:
            if not args.keep:
                await remove(graph, plain)
                await remove(graph, target)
        version = (
            await graph.read("CALL dbms.components() YIELD versions RETURN versions[0] AS v")
        )[0]["v"]
    return {
        "base": base_ms,
        "first": (first, first_ms),
        "again": (again, again_ms),
        "version": version,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--keep", action="store_true", help="keep the bench clients' records")
    args = parser.parse_args()
    settings = load_settings()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "contextual_memory.jsonl"
        rows = legacy_rows(args.rows, random.Random(7))
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        size = path.stat().st_size
        measured = asyncio.run(run(settings, path, args))
    publish(measured, args, size)


def publish(measured: dict[str, Any], args: argparse.Namespace, size: int) -> None:
    """Checks the imports did what they should, then prints the table and writes the JSON."""
    first, first_ms = measured["first"]
    again, again_ms = measured["again"]
    assert first.records == args.rows and not first.rejected, (first.records, first.rejected[:3])
    assert again.records == 0 and again.unchanged == args.rows  # idempotent
    base_s = sum(measured["base"]) / 1000
    rates = {
        "baseline_records_per_s": round(args.rows / base_s),
        "import_records_per_s": round(first.records / first.seconds),
        "reimport_lines_per_s": round(again.lines / again.seconds),
    }
    rows_out = {
        f"baseline UNWIND CREATE, batch of {args.batch}": summary(measured["base"]),
        f"import, batch of {args.batch}": summary(first_ms),
        f"re-import (nothing new), batch of {args.batch}": summary(again_ms),
    }
    ratios = {
        "import/baseline records per s": round(
            rates["import_records_per_s"] / rates["baseline_records_per_s"], 3
        ),
        "re-import/import lines per s": round(
            rates["reimport_lines_per_s"] / rates["import_records_per_s"], 3
        ),
    }
    sizes = {
        "rows": args.rows,
        "batch": args.batch,
        "file_bytes": size,
        "format": "contextual_memory",
    }
    report(
        "import_legacy",
        sizes=sizes,
        rows=rows_out,
        ratios=ratios,
        neo4j_server=measured["version"],
        extra={
            "rates": rates,
            "seconds": {
                "baseline": round(base_s, 2),
                "import": round(first.seconds, 2),
                "reimport": round(again.seconds, 2),
            },
        },
    )
    print(", ".join(f"{name} {value:,}" for name, value in rates.items()))


if __name__ == "__main__":
    main()
