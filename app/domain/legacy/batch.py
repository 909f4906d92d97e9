"""One batch of lines as the writer's parameters: each record's properties, its content stored
first (a line whose content cannot be stored is rejected, the others go on)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import AppError
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.domain.legacy.report import ImportReport, rejection
from app.domain.legacy.units import SessionPlan, Unit, record_props
from app.domain.memory import MemoryPolicy


@dataclass
class Batch:
    """The parameters of one batch's queries (writer.py), filled line by line."""

    records: list[dict[str, Any]] = field(default_factory=list)
    sessions: list[dict[str, Any]] = field(default_factory=list)
    subjects: list[dict[str, Any]] = field(default_factory=list)
    agents: set[str] = field(default_factory=set)  # of the records and sessions


@dataclass(frozen=True)
class Stored:
    """What stores the batch's content: where, as whom, under which limits, and when."""

    artifacts: ArtifactStore
    principal: Principal
    policy: MemoryPolicy
    now: datetime

    async def record(self, record: Any) -> dict[str, Any]:
        return await record_props(self.artifacts, self.principal, record, self.policy, self.now)

    async def session(self, line: int, plan: SessionPlan) -> dict[str, Any]:
        entries = [await self.record(entry) for entry in plan.entries]
        summary = None if plan.summary is None else await self.record(plan.summary)
        # The token tells the session this write created from one it found (writer.py).
        return {"line": line, "props": plan.props, "entries": entries, "summary": summary}


async def prepare_batch(
    units: list[Unit], stored: Stored, report: ImportReport
) -> tuple[Batch, list[Unit]]:
    """The batch's parameters and the lines in it."""
    batch, kept = Batch(), []
    for unit in units:
        try:
            records = [await stored.record(r) for r in unit.records]
            sessions = [await stored.session(unit.line, s) for s in unit.sessions]
        except AppError as error:
            report.rejected.append(rejection(unit.line, error))
            continue
        kept.append(unit)
        batch.records += [{"line": unit.line, "props": props} for props in records]
        batch.sessions += [s | {"token": new_id()} for s in sessions]
        batch.subjects += [{"line": unit.line} | s for s in unit.subjects]
        batch.agents |= {r["agent"] for r in records if r.get("agent")}
        batch.agents |= {s["props"]["agent"] for s in sessions}
    return batch, kept
