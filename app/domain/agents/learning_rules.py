"""Learning from feedback (seed 002): validation of a feedback event, the counter update it
makes, and the pattern summary read back (no I/O here)."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import MAX_TEXT, check_text

MAX_TASK_TYPE = 100
MAX_PATTERN = 100
MAX_PATTERNS = 20
MIN_RATING, MAX_RATING = 0.0, 5.0
PATTERN_STATS = ("count", "successes", "rating_sum", "rating_count")
TASK_TYPE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.:/-]*$")


def check_task_type(value: Any, *, field: str = "task_type") -> str:
    """A task type: 1-100 characters, letters, digits, space, '_', '.', ':', '/', '-'."""
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > MAX_TASK_TYPE:
        raise ValidationFailed(f"{field} must be 1-{MAX_TASK_TYPE} characters", field=field)
    value = value.strip()
    if not TASK_TYPE.match(value):
        raise ValidationFailed(
            f"{field}: letters, digits, space, '_', '.', ':', '/', '-', starting with a letter "
            "or digit",
            field=field,
        )
    return value


def check_feedback(fields: dict[str, Any]) -> dict[str, Any]:
    """task_type, success, rating, patterns and comment as a FeedbackEvent stores them."""
    success = fields.get("success")
    if not isinstance(success, bool):
        raise ValidationFailed("success must be true or false", field="success")
    rating = fields.get("rating")
    if rating is not None:
        if isinstance(rating, bool) or not isinstance(rating, int | float):
            raise ValidationFailed("rating must be a number", field="rating")
        if not math.isfinite(rating) or not MIN_RATING <= rating <= MAX_RATING:
            raise ValidationFailed(
                f"rating must be from {MIN_RATING:g} to {MAX_RATING:g}", field="rating"
            )
        rating = float(rating)
    check_text(fields, "comment", limit=MAX_TEXT)
    return {
        "task_type": check_task_type(fields.get("task_type")),
        "success": success,
        "rating": rating,
        "patterns": check_patterns(fields.get("patterns")),
        "comment": fields.get("comment"),
    }


def check_patterns(values: Any) -> list[str]:
    """Pattern (strategy) names, trimmed and de-duplicated in the order given."""
    if values is None:
        return []
    if not isinstance(values, list) or len(values) > MAX_PATTERNS:
        raise ValidationFailed(f"patterns must list at most {MAX_PATTERNS}", field="patterns")
    names = []
    for value in values:
        if not isinstance(value, str) or not value.strip() or len(value.strip()) > MAX_PATTERN:
            raise ValidationFailed(
                f"each pattern must be 1-{MAX_PATTERN} characters", field="patterns"
            )
        names.append(value.strip())
    return list(dict.fromkeys(names))


def _patterns(performance: dict[str, Any]) -> dict[str, dict[str, Any]]:
    raw = performance.get("patterns")
    return dict(json.loads(raw)) if isinstance(raw, str) else dict(raw or {})


def learned(performance: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
    """The counters after one more feedback event (read under the performance node's lock)."""
    rated = event["rating"] is not None
    rating = event["rating"] if rated else 0.0
    patterns = _patterns(performance)
    for name in event["patterns"]:
        stats = patterns.get(name) or {}
        patterns[name] = {
            "count": int(stats.get("count", 0)) + 1,
            "successes": int(stats.get("successes", 0)) + int(event["success"]),
            "rating_sum": float(stats.get("rating_sum", 0.0)) + rating,
            "rating_count": int(stats.get("rating_count", 0)) + int(rated),
        }
    return {
        "total": int(performance.get("total") or 0) + 1,
        "successes": int(performance.get("successes") or 0) + int(event["success"]),
        "rating_sum": float(performance.get("rating_sum") or 0.0) + rating,
        "rating_count": int(performance.get("rating_count") or 0) + int(rated),
        "patterns": json.dumps(patterns, separators=(",", ":"), sort_keys=True),
    }


def _ratio(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def _most_used(stats: dict[str, Any]) -> tuple[int, float, str]:
    return (-int(stats["count"]), -float(stats["avg_rating"] or 0.0), str(stats["pattern"]))


def summary(performances: list[dict[str, Any]]) -> dict[str, Any]:
    """Totals, success rate, average rating and per-pattern stats over the given task types
    (seed 002's agent patterns); patterns most used first."""
    total = sum(int(p.get("total") or 0) for p in performances)
    successes = sum(int(p.get("successes") or 0) for p in performances)
    rating_sum = sum(float(p.get("rating_sum") or 0.0) for p in performances)
    rating_count = sum(int(p.get("rating_count") or 0) for p in performances)
    merged: dict[str, dict[str, float]] = {}
    for performance in performances:
        for name, stats in _patterns(performance).items():
            into = merged.setdefault(name, dict.fromkeys(PATTERN_STATS, 0))
            for key, value in stats.items():
                into[key] = into.get(key, 0) + value
    patterns = [
        {
            "pattern": name,
            "count": int(stats["count"]),
            "successes": int(stats["successes"]),
            "success_rate": _ratio(stats["successes"], stats["count"]),
            "avg_rating": _ratio(stats["rating_sum"], stats["rating_count"]),
            "rating_count": int(stats["rating_count"]),
        }
        for name, stats in merged.items()
    ]
    patterns.sort(key=_most_used)
    return {
        "total_tasks": total,
        "successful_tasks": successes,
        "success_rate": _ratio(successes, total),
        "avg_rating": _ratio(rating_sum, rating_count),
        "rating_count": rating_count,
        "patterns": patterns,
    }


def agent_patterns(
    performances: list[dict[str, Any]], *, agent_name: str, task_type: str | None
) -> dict[str, Any]:
    """`summary` with what it summarises: the agent, the task type (None: all of them), the
    task types found and when they last changed."""
    updated = [p["updated_at"] for p in performances]
    return summary(performances) | {
        "agent_name": agent_name,
        "task_type": task_type,
        "task_types": [p["task_type"] for p in performances],
        "updated_at": max(updated) if updated else None,
    }
