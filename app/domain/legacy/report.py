"""What an import is asked to do and what it reports: lines imported, found already there or
rejected (with line number, code, field and reason), and what it wrote."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.domain.kernel.errors import AppError
from app.domain.legacy.units import Unit
from app.domain.legacy.values import LegacyFormat
from app.domain.memory import MemoryPolicy

DEFAULT_BATCH = 500


@dataclass(frozen=True)
class ImportOptions:
    format: LegacyFormat
    agent: str | None = None  # the agent of the imported namespaces (sessions: a default)
    batch: int = DEFAULT_BATCH  # nodes per transaction, in whole lines
    policy: MemoryPolicy = MemoryPolicy()


@dataclass(frozen=True)
class Rejected:
    line: int
    code: str
    field: str | None
    reason: str


def rejection(line: int, error: AppError) -> Rejected:
    return Rejected(line, error.code, error.details.get("field"), error.message)


@dataclass
class ImportReport:
    lines: int = 0  # non-blank lines read
    imported: int = 0  # lines that wrote something new
    unchanged: int = 0  # lines whose every node was there already (imported before)
    records: int = 0  # memory records written
    sessions: int = 0
    subjects: int = 0
    batches: int = 0
    seconds: float = 0.0
    rejected: list[Rejected] = field(default_factory=list)

    @property
    def records_per_s(self) -> float:
        return self.records / self.seconds if self.seconds else 0.0

    def account(self, units: list[Unit], rows: list[dict[str, Any]]) -> None:
        """A written batch's lines, from the writer's rows ({line, created, type} per node)."""
        created = [row for row in rows if row["created"]]
        fresh = {row["line"] for row in created}
        self.imported += sum(1 for u in units if u.line in fresh)
        self.unchanged += sum(1 for u in units if u.line not in fresh)
        self.subjects += sum(1 for row in created if row["type"] == "subjects")
        self.records += sum(1 for row in created if row["type"] == "records")
        new_sessions = {row["line"] for row in created if row["type"] == "sessions"}
        self.sessions += len(new_sessions)
        # A new session's entries and summary are new records too.
        self.records += sum(
            len(s.entries) + (s.summary is not None)
            for u in units
            if u.line in new_sessions
            for s in u.sessions
        )
