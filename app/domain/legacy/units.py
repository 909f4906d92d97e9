"""What one legacy line becomes: memory records (checked by the same rules as `remember`), and
the session or subject they belong to. A line is written whole or not at all."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.kernel.principal import Principal
from app.domain.memory import MemoryPolicy, PreparedMemory, check_memory
from app.domain.memory.fields import with_content
from app.domain.memory.write import new_record


@dataclass(frozen=True)
class Planned:
    """A record to write: checked, its content not stored yet, with its legacy created_at."""

    memory: PreparedMemory
    content: Any
    created_at: datetime


@dataclass(frozen=True)
class SessionPlan:
    """A MemorySession with its entries (and summary) written only if the session is new."""

    props: dict[str, Any]
    entries: list[Planned]
    summary: Planned | None


@dataclass
class Unit:
    """One legacy line's writes."""

    line: int
    records: list[Planned] = field(default_factory=list)  # keyed: MERGE, skipped when present
    sessions: list[SessionPlan] = field(default_factory=list)
    subjects: list[dict[str, Any]] = field(default_factory=list)  # MERGE by external_ref

    @property
    def size(self) -> int:
        """Nodes the line writes at most (what a batch is counted in)."""
        inner = sum(len(s.entries) + 1 + (s.summary is not None) for s in self.sessions)
        return len(self.records) + inner + len(self.subjects)


def planned(
    fields: dict[str, Any], *, principal: Principal, now: datetime, created_at: datetime
) -> Planned:
    """`fields` checked as `remember` checks them (VALIDATION otherwise)."""
    memory = check_memory(fields, principal=principal, now=now)
    return Planned(memory, fields.get("content"), created_at)


async def record_props(
    artifacts: ArtifactStore,
    principal: Principal,
    record: Planned,
    policy: MemoryPolicy,
    now: datetime,
) -> dict[str, Any]:
    """The node's properties, its content stored first (object storage above the inline
    limit, as for `remember`); VALIDATION for content too large or not JSON. It keeps its
    legacy created_at (eviction's "oldest first" and the lists' order), and is updated `now`:
    the embedding worker looks for records by updated_at, from where it got to."""
    memory = await with_content(artifacts, principal, record.memory, record.content, policy)
    return new_record(principal, memory, now) | {"created_at": record.created_at}
