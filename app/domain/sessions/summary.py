"""The episodic summary of a flushed session: the built-in extractive summarizer (the one thread
summaries use, app/domain/conversations/summarizer.py) over the session's entries, with a
header that counts entries per timeline and the highest-priority entries quoted, so that the
summary keeps searchable detail. No model is called; the same entries always give the same text.

Entries said by the session's agent count as our (outbound) messages, entries of any other
speaker as theirs (inbound).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from app.domain.conversations import Message, summarize

HIGHLIGHTS = 5
MAX_QUOTE = 200
MAX_TEXT = 4_000


def entry_text(entry: dict[str, Any]) -> str:
    """What an entry says: its text, else its content as compact JSON."""
    if entry.get("text"):
        return str(entry["text"])
    content = entry.get("content")
    if content is None:
        return ""
    return content if isinstance(content, str) else json.dumps(content, sort_keys=True)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _duration(started: datetime, ended: datetime) -> str:
    seconds = max(0, int((ended - started).total_seconds()))
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes} min {seconds} s" if minutes else f"{seconds} s"


def summary_text(
    session: dict[str, Any], entries: list[dict[str, Any]], counts: dict[str, int], ended: datetime
) -> str:
    """The extractive summary of `session`: `entries` are its newest entries in order, `counts`
    the number of entries per timeline (all of them)."""
    agent = session["agent"]
    per_timeline = ", ".join(f"{name}: {count}" for name, count in counts.items())
    head = (
        f"Session of {agent} with {session.get('subject') or 'no subject'}: "
        f"{sum(counts.values())} entries on {len(counts)} timeline(s)"
        f"{f' ({per_timeline})' if per_timeline else ''}, "
        f"{_duration(session['created_at'], ended)}."
    )
    if not entries:
        return head
    draft = summarize(
        [
            Message("outbound" if entry.get("source_agent") in (None, agent) else "inbound", text)
            for entry in entries
            if (text := entry_text(entry))
        ],
        participant=session.get("subject"),
    )
    ranked = sorted(enumerate(entries), key=lambda pair: (-int(pair[1]["priority"]), pair[0]))
    quotes = [
        f"[{entry['timeline']}] {_clip(entry_text(entry), MAX_QUOTE)}"
        for _, entry in sorted(ranked[:HIGHLIGHTS])
        if entry_text(entry)
    ]
    text = " ".join([head, draft.short, "Highlights: " + " | ".join(quotes)])
    return _clip(text, MAX_TEXT)


def summary_content(
    session: dict[str, Any], counts: dict[str, int], ended: datetime, *, method: str
) -> dict[str, Any]:
    """The summary record's structured content: what searchEpisodicSummaries reports."""
    return {
        "session_id": session["id"],
        "agent": session["agent"],
        "subject": session.get("subject"),
        "entry_count": sum(counts.values()),
        "timelines": list(counts),
        "timeline_count": len(counts),
        "duration_seconds": max(0.0, (ended - session["created_at"]).total_seconds()),
        "started_at": session["created_at"].isoformat(),
        "ended_at": ended.isoformat(),
        "method": method,
    }
