"""What a session teaches (seed 003): summarizeSession mid-session, and the facts endSession
learns (its `facts` argument; the outcome of each on EndSessionPayload.facts)."""

from __future__ import annotations

import dataclasses
from typing import Any

import strawberry

from app.api.context import Info
from app.api.read.records import load_records
from app.api.read.selection import selected, under
from app.api.resolve import write_payload
from app.api.types.memory import MemoryRecord
from app.api.types.sessions import MemorySession
from app.domain import sessions
from app.domain.sessions import LearnedFact
from app.domain.sessions.flush import Flushed
from app.model.enums import FactOutcome


@strawberry.input(
    description="A fact the caller's own model extracted from the session, about its subject: "
    "stored as a semantic memory at subject:S/agent:A/facts unless the subject's memory "
    "already says it (same key there, or near-identical text anywhere the agent sees)."
)
class ExtractedFactInput:
    text: str = strawberry.field(description="1-2000 characters.")
    key: str | None = strawberry.field(
        default=None, description="Names the fact: a later fact with this key updates it."
    )
    tags: list[str] | None = None
    priority: int | None = strawberry.field(default=None, description="1-10 (default 5).")


def fact_fields(facts: list[ExtractedFactInput] | None) -> list[dict[str, Any]] | None:
    return None if facts is None else [dataclasses.asdict(fact) for fact in facts]


@dataclasses.dataclass(frozen=True)
class Ended:
    """What EndSessionPayload is loaded from (load_payload): the flush, its facts as results."""

    session: dict[str, Any]
    summary: dict[str, Any]
    entries_summarized: int
    facts: list[LearnedFactResult]

    @classmethod
    def of(cls, flushed: Flushed, facts: list[LearnedFactResult]) -> Ended:
        return cls(flushed.session, flushed.summary, flushed.entries_summarized, facts)


@strawberry.type(description="What endSession did with one extracted fact.")
class LearnedFactResult:
    outcome: FactOutcome
    record: MemoryRecord = strawberry.field(
        description="The memory now saying it: written, or the one that already did."
    )


async def learned_facts(info: Info, facts: list[LearnedFact]) -> list[LearnedFactResult]:
    """The outcomes with their records loaded as the caller selected them under facts.record."""
    wanted = under(selected(info), "facts", "record")
    records = await load_records(info, MemoryRecord, [fact.record for fact in facts], wanted)
    return [
        LearnedFactResult(outcome=fact.outcome, record=record)
        for fact, record in zip(facts, records, strict=True)
    ]


@strawberry.type
class SessionProgressPayload:
    session: MemorySession
    summary: MemoryRecord = strawberry.field(
        description="The progress summary (kind episodic, key session-progress): a new version "
        "each call."
    )
    entries_summarized: int = strawberry.field(description="Live entries it summarises.")


@strawberry.type
class ProgressMutations:
    @strawberry.mutation(
        description="Summarise an open session without ending it (seed 003 summarizeMemory): "
        "`summary` when given, else the built-in extractive summary of the entries so far, as "
        "a new version of the session's progress summary, linked SUMMARIZES to every live "
        "entry. The session stays open. INVALID_TRANSITION once it is flushed."
    )
    async def summarize_session(
        self, info: Info, id: strawberry.ID, summary: str | None = None
    ) -> SessionProgressPayload:
        return await write_payload(
            info,
            sessions.summarize_session,
            SessionProgressPayload,
            session_id=id,
            summary=summary,
        )
