"""Lessons and client snapshots (seed 000, 8); fields from app/model."""

from __future__ import annotations

from datetime import UTC, datetime

import strawberry

from app.api.context import Info
from app.api.types.base import NodeType, node_type
from app.domain.lessons import effective_confidence, is_retired, strategy_notes_text
from app.model.enums import SnapshotPeriod


@node_type("Lesson", "A learned lesson (EpisodicMemory, seed 000, 8.1).")
class Lesson(NodeType):
    # effectiveConfidence and active decay the confidence from the last evidence.
    __needs__ = frozenset(
        {"confidence", "decay_half_life_days", "last_evidence_at", "retired", "valid_to"}
    )

    superseded_by: strawberry.ID | None  # a Lesson's id
    # Read by the fields below.
    confidence: float
    decay_half_life_days: float
    last_evidence_at: datetime
    valid_to: datetime | None
    retired: bool

    @strawberry.field(
        description="confidence * 0.5 ^ (days since lastEvidenceAt / decayHalfLifeDays), "
        "computed now."
    )
    def effective_confidence(self) -> float:
        return _effective(self)

    @strawberry.field(
        description="Not retired, not superseded, and effective confidence at or above the "
        "retire threshold."
    )
    def active(self, info: Info) -> bool:
        threshold = info.context.services.settings.lesson_retire_threshold
        return (
            not self.retired
            and self.valid_to is None
            and not is_retired(_effective(self), threshold=threshold)
        )


def _effective(lesson: Lesson) -> float:
    return effective_confidence(
        confidence=lesson.confidence,
        half_life_days=lesson.decay_half_life_days,
        last_evidence_at=lesson.last_evidence_at,
        now=datetime.now(UTC),
    )


@node_type("ClientSnapshot", "A periodic snapshot of what worked (seed 000, 8.2).")
class ClientSnapshot(NodeType):
    __needs__ = frozenset({"strategy_notes_uri"})  # strategyNotes

    period: SnapshotPeriod = strawberry.field(
        description="WEEKLY and MONTHLY (UTC calendar windows) are written on a schedule, once "
        "per window; CUSTOM ones by generateClientSnapshot."
    )
    window_key: str | None = strawberry.field(
        description="A scheduled window, unique per client: period/windowStart; null for CUSTOM."
    )
    top_assets: list[strawberry.ID] | None
    top_lessons: list[strawberry.ID] | None
    strategy_notes_uri: str | None  # read by strategyNotes

    @strawberry.field(description="The strategy notes (Markdown), read from object storage.")
    async def strategy_notes(self, info: Info) -> str | None:
        return await strategy_notes_text(
            info.context.services.artifacts,
            principal=info.context.caller(),
            snapshot={"id": str(self.id), "strategy_notes_uri": self.strategy_notes_uri},
        )
