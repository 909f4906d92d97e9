"""Importing a legacy JSON-lines file: lines parsed and checked one by one (a bad line is
rejected with its reason and the rest go on), written in batches of whole lines, one
transaction per batch, content stored in object storage first where it is large."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from app.artifacts.staged import staged_uploads
from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import AppError, ValidationFailed
from app.domain.kernel.principal import Principal
from app.domain.legacy.batch import Stored, prepare_batch
from app.domain.legacy.contextual import context_unit
from app.domain.legacy.jarvis import jarvis_unit
from app.domain.legacy.report import ImportOptions, ImportReport, rejection
from app.domain.legacy.session_agent import session_unit
from app.domain.legacy.units import Unit
from app.domain.legacy.values import LegacyFormat
from app.domain.legacy.writer import write_batch
from app.domain.memory import audited, check_segment
from app.graph.executor import GraphExecutor, Tx

DEFAULT_AGENT = "session-memory-agent"
PARSERS: dict[LegacyFormat, Callable[..., Unit]] = {
    LegacyFormat.SESSION_MEMORY_AGENT: session_unit,
    LegacyFormat.CONTEXTUAL_MEMORY: context_unit,
    LegacyFormat.JARVIS_MEMORY: jarvis_unit,
}


Progress = Callable[[ImportReport], None]


async def import_lines(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    lines: Iterable[str],
    options: ImportOptions,
    progress: Progress | None = None,
) -> ImportReport:
    """Import a legacy file's lines (README "Importing legacy memory"); the report counts
    lines, what was written, and lists every rejected line with its reason."""
    principal.require_writer()
    agent = options.agent
    if agent is None and options.format is LegacyFormat.SESSION_MEMORY_AGENT:
        agent = DEFAULT_AGENT
    agent = None if agent is None else check_segment(agent, field="agent")
    principal.require_agent(agent, what="import memory of agent")
    report, started = ImportReport(), time.perf_counter()
    pending: list[Unit] = []
    size = 0  # the nodes of the pending lines
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        report.lines += 1
        unit = _parsed(text, number, principal, options.format, agent, report)
        if unit is None:
            continue
        pending.append(unit)
        size += unit.size
        if size >= options.batch:
            await _flush(graph, artifacts, principal, pending, options, report)
            _progressed(report, started, progress)
            pending, size = [], 0
    if pending:
        await _flush(graph, artifacts, principal, pending, options, report)
    _progressed(report, started, progress)
    return report


def _progressed(report: ImportReport, started: float, progress: Progress | None) -> None:
    report.seconds = time.perf_counter() - started
    if progress is not None:
        progress(report)


def _parsed(
    text: str,
    number: int,
    principal: Principal,
    legacy: LegacyFormat,
    agent: str | None,
    report: ImportReport,
) -> Unit | None:
    """The line's unit, or None with the line noted as rejected."""
    try:
        try:
            row = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValidationFailed(f"not JSON: {error.msg} at column {error.colno}") from None
        if not isinstance(row, dict):
            raise ValidationFailed("a line must be one JSON object")
        now = datetime.now(UTC)
        return PARSERS[legacy](row, line=number, principal=principal, agent=agent, now=now)
    except AppError as error:
        report.rejected.append(rejection(number, error))
        return None


async def _flush(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    principal: Principal,
    units: list[Unit],
    options: ImportOptions,
    report: ImportReport,
) -> None:
    """One batch: content stored, then every line's nodes in one transaction."""
    with audited(principal, "import") as audit:
        now = datetime.now(UTC)
        async with staged_uploads(artifacts, principal, shared=True):
            stored = Stored(artifacts, principal, options.policy, now)
            batch, kept = await prepare_batch(units, stored, report)

            async def work(tx: Tx) -> list[dict[str, Any]]:
                return await write_batch(tx, batch, client_id=principal.client_id, now=now)

            rows = await graph.in_transaction(work) if kept else []
        report.batches += 1
        audit.detail = f"{options.format.value}: {len(kept)} lines, {len(rows)} nodes"
    report.account(kept, rows)
