"""Lesson rules (seed 000, 8.1 and 8.4): validation, confidence decay, retirement, supersession.

Decay: a lesson's effective confidence at time t is

    confidence * 0.5 ** (days since last_evidence_at / decay_half_life_days)

computed when it is read (never stored). A lesson whose effective confidence falls below the
retire threshold (Settings.lesson_retire_threshold) is retired.

Evidence: each NEW evidence record (a metric or an episode not linked to the lesson before)
restarts the decay clock (last_evidence_at = now) and raises the stored confidence by
`boost` (Settings.lesson_evidence_boost) of its remaining distance to 1:
c' = c + boost * (1 - c). Evidence already linked changes nothing.

Supersession: a lesson is superseded at most once (valid_to and superseded_by set together);
a superseded lesson takes no more evidence and is never deleted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.domain.kernel.errors import InvalidTransition, ValidationFailed
from app.domain.kernel.field_rules import MAX_TEXT, check_text, enum_value
from app.model.enums import LessonScope, LessonType
from app.settings import Settings

SECONDS_PER_DAY = 86_400.0
MAX_HALF_LIFE_DAYS = 36_500.0

# The same rule in Cypher, for queries that filter or rank by it; {v} is the lesson variable,
# $now the read time. Negative ages (evidence "from the future") count as zero.
EFFECTIVE_CONFIDENCE_CYPHER = (
    "({v}.confidence * 0.5 ^ (CASE WHEN {v}.last_evidence_at > $now THEN 0.0 ELSE "
    "($now.epochMillis - {v}.last_evidence_at.epochMillis) / 86400000.0 END "
    "/ {v}.decay_half_life_days))"
)


@dataclass(frozen=True)
class LessonPolicy:
    """The tunables of the rules (Settings.lesson_retire_threshold, lesson_evidence_boost)."""

    retire_threshold: float = 0.2
    evidence_boost: float = 0.1

    @classmethod
    def of(cls, settings: Settings) -> LessonPolicy:
        return cls(settings.lesson_retire_threshold, settings.lesson_evidence_boost)


def effective_cypher(var: str) -> str:
    return EFFECTIVE_CONFIDENCE_CYPHER.format(v=var)


def effective_confidence(
    *, confidence: float, half_life_days: float, last_evidence_at: datetime, now: datetime
) -> float:
    age_days = max(0.0, (now - last_evidence_at).total_seconds() / SECONDS_PER_DAY)
    return float(confidence * 0.5 ** (age_days / half_life_days))


def is_retired(effective: float, *, threshold: float) -> bool:
    """Retired means below the threshold; a lesson exactly at the threshold is still active."""
    return effective < threshold


def boosted_confidence(confidence: float, *, new_evidence: int, boost: float) -> float:
    """The stored confidence after `new_evidence` new evidence records (see the module doc)."""
    if new_evidence < 0 or not 0.0 <= boost < 1.0:
        raise ValueError("new_evidence >= 0 and 0 <= boost < 1")
    return float(1.0 - (1.0 - confidence) * (1.0 - boost) ** new_evidence)


def check_confidence(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise ValidationFailed("confidence must be a number from 0 to 1", field="confidence")
    if not 0.0 <= value <= 1.0:
        raise ValidationFailed("confidence must be a number from 0 to 1", field="confidence")
    return float(value)


def check_half_life(value: Any) -> float:
    field = "decay_half_life_days"
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise ValidationFailed(f"{field} must be a number of days > 0", field=field)
    if not 0.0 < value <= MAX_HALF_LIFE_DAYS:
        raise ValidationFailed(
            f"{field} must be > 0 and at most {MAX_HALF_LIFE_DAYS:g} days", field=field
        )
    return float(value)


def check_note(note: Any) -> None:
    check_text({"note": note}, "note", limit=MAX_TEXT)


def require_some_evidence() -> None:
    raise ValidationFailed("give at least one of metric_ids and episode_ids", field="metric_ids")


def check_lesson_filter(where: dict[str, Any]) -> dict[str, Any]:
    """Parameters of a lesson filter: scope, lesson_type, statement_contains (each optional)."""
    check_text(where, "statement_contains", limit=200)
    scope, lesson_type = where.get("scope"), where.get("lesson_type")
    return {
        "scope": None if scope is None else enum_value(LessonScope, scope, field="scope").value,
        "lesson_type": None
        if lesson_type is None
        else enum_value(LessonType, lesson_type, field="lesson_type").value,
        "text": where.get("statement_contains") or None,
    }


def check_new_lesson(fields: dict[str, Any]) -> dict[str, Any]:
    """The stored values of a new lesson's own fields (evidence is checked by the repository)."""
    check_text(fields, "statement", limit=MAX_TEXT, required=True)
    return {
        "scope": enum_value(LessonScope, fields.get("scope"), field="scope").value,
        "lesson_type": enum_value(LessonType, fields.get("lesson_type"), field="lesson_type").value,
        "statement": fields["statement"].strip(),
        "confidence": check_confidence(fields.get("confidence")),
        "decay_half_life_days": check_half_life(fields.get("decay_half_life_days")),
    }


def initial_state(stored: dict[str, Any], *, now: datetime, threshold: float) -> dict[str, Any]:
    """Lifecycle fields of a new lesson: valid from now, evidence clock at now; a lesson created
    below the threshold is born retired."""
    return {
        "valid_from": now,
        "last_evidence_at": now,
        "retired": is_retired(stored["confidence"], threshold=threshold),
    }


def evidence_changes(
    lesson: dict[str, Any], *, new_evidence: int, now: datetime, boost: float, threshold: float
) -> dict[str, Any]:
    """What new evidence changes: nothing when none is new; else the boosted confidence, the
    decay clock restarted, and retired again only if even the boosted confidence is too low."""
    if new_evidence == 0:
        return {}
    confidence = boosted_confidence(lesson["confidence"], new_evidence=new_evidence, boost=boost)
    return {
        "confidence": confidence,
        "last_evidence_at": now,
        "retired": is_retired(confidence, threshold=threshold),
    }


def check_can_take_evidence(lesson: dict[str, Any]) -> None:
    if lesson.get("valid_to") is not None:
        raise InvalidTransition(
            f"lesson {lesson['id']} was superseded by {lesson.get('superseded_by')}; "
            "add evidence to the lesson that superseded it",
            id=lesson["id"],
        )


def check_can_supersede(old: dict[str, Any]) -> None:
    if old.get("valid_to") is not None or old.get("superseded_by") is not None:
        raise InvalidTransition(
            f"lesson {old['id']} was already superseded by {old.get('superseded_by')}; "
            "supersede that lesson instead",
            id=old["id"],
        )
