"""`agentmem import FILE --client NAME --format FORMAT`: a legacy memory store's JSON-lines
export (seed 004; the formats are in README "Importing legacy memory") into a client's memory,
as an admin of that client. Progress goes to stderr after every batch; the rejected lines (line
number, code, field, reason) to --rejects as JSON lines, else to stdout. Exit status 0 when
every line was imported (or had been before), 1 when some were rejected, 2 when nothing ran."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Iterator
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from app.domain.kernel.errors import AppError
from app.domain.legacy import DEFAULT_BATCH, ImportOptions, ImportReport, LegacyFormat, Rejected
from app.settings import Settings

if TYPE_CHECKING:
    from app.cli.constraint_store import Acting

FORMATS = [legacy.value for legacy in LegacyFormat]


def add_import_parser(commands: Any) -> None:
    command = commands.add_parser(
        "import", help="import a legacy memory store's JSON-lines file (idempotent)"
    )
    command.add_argument("file", type=Path, help="one JSON object per line")
    command.add_argument("--client", required=True, help="client name (must exist)")
    command.add_argument("--format", required=True, choices=FORMATS)
    command.add_argument(
        "--agent",
        default=None,
        help="the agent of the imported memory (session_memory_agent: default "
        "session-memory-agent; other formats: none)",
    )
    command.add_argument(
        "--batch", type=int, default=DEFAULT_BATCH, help="nodes per transaction (whole lines)"
    )
    command.add_argument("--rejects", type=Path, default=None, help="rejected lines (JSON lines)")


def run_import(settings: Settings, args: argparse.Namespace) -> int:
    if args.batch < 1:
        print("import: --batch must be at least 1", file=sys.stderr)
        return 2
    options = ImportOptions(LegacyFormat(args.format), agent=args.agent, batch=args.batch)
    try:
        with args.file.open(encoding="utf-8") as lines:
            report, evicted = asyncio.run(_import(settings, args.client, lines, options))
    except OSError as error:
        print(f"import: cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 2
    except AppError as error:
        print(f"import: {error.code}: {error.message}", file=sys.stderr)
        return 2
    print(file=sys.stderr)
    print(summary_line(report) + (f"; {evicted} records evicted over capacity" if evicted else ""))
    _write_rejects(report.rejected, args.rejects)
    return 1 if report.rejected else 0


async def _import(
    settings: Settings, client: str, lines: TextIO, options: ImportOptions
) -> tuple[ImportReport, int]:
    """The report, and the records evicted after it (the client's capacity, if any); each
    batch and the eviction written to the client's access log, as the API process does."""
    from app.cli.constraint_store import acting_for
    from app.domain.memory import AccessLogWriter, access_log

    async with acting_for(settings, client) as acting:
        writer = AccessLogWriter(acting.graph) if settings.access_log_enabled else None
        access_log.install(writer)
        try:
            return await _import_and_evict(settings, acting, lines, options)
        finally:
            if writer is not None:
                await writer.close()
            access_log.install(None)


async def _import_and_evict(
    settings: Settings, acting: Acting, lines: TextIO, options: ImportOptions
) -> tuple[ImportReport, int]:
    from app.domain.legacy import import_lines
    from app.domain.memory import Capacity, MemoryPolicy, evict_over_capacity
    from app.domain.memory.sweep_steps import merge_counts

    report = await import_lines(
        acting.graph,
        acting.artifacts,
        principal=acting.principal,
        lines=lines,
        options=replace(options, policy=MemoryPolicy.of(settings)),
        progress=_progress,
    )
    evicted = await evict_over_capacity(
        acting.graph,
        acting.artifacts,
        Capacity.of(settings),
        client_id=acting.principal.client_id,
        batch=settings.memory_sweep_batch,
    )
    merge_counts({}, evicted)  # the access log entries a sweep writes
    return report, sum(sum(counts.values()) for counts in evicted.per_client.values())


def _progress(report: ImportReport) -> None:
    print(f"\r  {summary_line(report)}", end="", file=sys.stderr, flush=True)


def summary_line(report: ImportReport) -> str:
    return (
        f"{report.lines:,} lines: {report.imported:,} imported, {report.unchanged:,} already "
        f"there, {len(report.rejected):,} rejected; {report.records:,} records, "
        f"{report.sessions:,} sessions, {report.subjects:,} subjects in {report.seconds:.1f} s "
        f"({report.records_per_s:,.0f} records/s)"
    )


def _write_rejects(rejected: list[Rejected], path: Path | None) -> None:
    if path is not None:
        path.write_text("".join(json.dumps(asdict(r)) + "\n" for r in rejected), encoding="utf-8")
        if rejected:
            print(f"{len(rejected)} rejected lines in {path}")
        return
    for line in _described(rejected):
        print(line)


def _described(rejected: list[Rejected]) -> Iterator[str]:
    for r in rejected:
        where = f" ({r.field})" if r.field else ""
        yield f"rejected line {r.line}: {r.code}{where}: {r.reason}"
