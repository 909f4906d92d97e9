"""Reading a file in the LoCoMo format (a JSON list of samples) into conversations: turns,
derived notes (observations and session summaries) and questions, nothing else kept."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.locomo_metric import dia_ids

SESSION = re.compile(r"^session_(\d+)$")
DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%d %B, %Y", "%d %B %Y")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    session: int
    speaker: str
    text: str
    caption: str | None
    date_time: str | None
    occurred_at: datetime | None


@dataclass(frozen=True)
class Note:
    """An observation (about its source turns) or a session summary (about its session)."""

    kind: str  # "observation" | "session_summary"
    text: str
    session: int
    turns: tuple[str, ...]


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    turns: list[Turn]
    notes: list[Note]
    questions: list[Question]


def load(path: Path) -> list[Conversation]:
    samples = json.loads(path.read_text())
    if not isinstance(samples, list):
        raise ValueError(f"{path}: expected a JSON list of LoCoMo samples")
    return [conversation(sample) for sample in samples]


def conversation(sample: dict[str, Any]) -> Conversation:
    talk = sample["conversation"]
    sessions = sorted(int(m.group(1)) for key in talk if (m := SESSION.match(key)))
    turns = [turn for n in sessions for turn in _turns(talk, n)]
    notes = _observations(sample.get("observation") or {})
    notes += _summaries(sample.get("session_summary") or {})
    questions = [
        Question(str(qa["question"]), int(qa["category"]), dia_ids(qa.get("evidence") or []))
        for qa in sample.get("qa") or []
    ]
    speakers = (str(talk.get("speaker_a", "")), str(talk.get("speaker_b", "")))
    return Conversation(str(sample["sample_id"]), speakers, turns, notes, questions)


def _turns(talk: dict[str, Any], session: int) -> list[Turn]:
    date_time = talk.get(f"session_{session}_date_time")
    start = _parse_date(date_time)
    return [
        Turn(
            dia_id=dia_ids(item["dia_id"])[0],
            session=session,
            speaker=str(item["speaker"]),
            text=str(item.get("text") or ""),
            caption=item.get("blip_caption"),
            date_time=date_time,
            # One second apart keeps the session's order in the event times.
            occurred_at=start + timedelta(seconds=i) if start else None,
        )
        for i, item in enumerate(talk.get(f"session_{session}") or [])
    ]


def _parse_date(text: str | None) -> datetime | None:
    for form in DATE_FORMATS:
        try:
            return datetime.strptime((text or "").strip(), form).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def _session_key(key: str) -> int | None:
    match = re.match(r"^session_(\d+)_", key)
    return int(match.group(1)) if match else None


def _observations(observations: dict[str, Any]) -> list[Note]:
    notes = []
    for key, by_speaker in sorted(observations.items()):
        session = _session_key(key)
        if session is None or not isinstance(by_speaker, dict):
            continue
        for facts in by_speaker.values():
            for fact, source in facts:
                notes.append(Note("observation", str(fact), session, dia_ids(source)))
    return notes


def _summaries(summaries: dict[str, Any]) -> list[Note]:
    notes = []
    for key, text in sorted(summaries.items()):
        session = _session_key(key)
        if session is not None and isinstance(text, str) and text.strip():
            notes.append(Note("session_summary", text, session, ()))
    return notes
