"""A client snapshot's strategy notes: Markdown for people, stored in object storage."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.model.enums import SnapshotPeriod

# What escalated, by the source of an escalation risk (app/domain/lessons/snapshot_inputs.py).
ESCALATED = {
    "conversation_thread": "conversation threads escalated to a human",
    "agent_episode": "agent episodes ended as escalated",
    "engagement_event": "escalation engagement events",
}


def strategy_notes(
    inputs: dict[str, Any], *, period: SnapshotPeriod, start: datetime, end: datetime, author: str
) -> str:
    """The Markdown notes: what performed, what we believe, what to watch."""
    lines = [
        f"# Strategy notes ({period.value}): {start.date()} to {end.date()}",
        "",
        f"Generated {datetime.now(UTC).isoformat(timespec='seconds')} by {author}.",
        "",
        "## Top assets (sum of metric values in the window)",
    ]
    lines += [
        f"{n}. **{a['title']}** ({a['asset_type']}): {a['score']:g} over {a['metrics']} metrics"
        for n, a in enumerate(inputs["assets"], 1)
    ] or ["No metrics in this window."]
    lines += ["", "## Top lessons (effective confidence)"]
    lines += [
        f"{n}. {x['statement']} ({x['lesson_type']}, {x['effective_confidence']:.2f})"
        for n, x in enumerate(inputs["lessons"], 1)
    ] or ["No active lessons."]
    lines += ["", "## Risks"]
    lines += [f"- {_risk_line(risk)}" for risk in inputs["risks"]] or ["- None seen."]
    return "\n".join(lines) + "\n"


def _risk_line(risk: dict[str, Any]) -> str:
    kind, count = risk["kind"], risk.get("count")
    if kind == "failed_publish_runs":
        errors = "; ".join(risk["errors"]) or "no error recorded"
        return f"{count} failed publish runs on {risk['platform']} ({errors})"
    if kind == "failed_engagement":
        reason = risk["failure_reason"] or "unclassified"
        return f"{count} failed {risk['event_kind']} engagement events ({reason})"
    if kind == "escalations":
        return f"{count} {ESCALATED[risk['source']]}"
    if kind == "contradicted_lesson":
        return f"Contradicted lesson: {risk['statement']} ({count} contradicting records)"
    return f"Failure lesson: {risk['statement']}"
