"""The LoCoMo retrieval metric (Maharana et al., ACL 2024; task_eval/evaluation.py of the paper's
code): recall@k = the fraction of a question's evidence dia_ids found among the top k retrieved
items, where a turn counts for itself, an observation for its source dia_ids and a session
summary for every turn of its session. Questions without evidence are skipped (the paper's code
counts them as 1.0, which would inflate every figure alike)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import fmean

# "D8:6", and the malformed forms of the release: "D8:6; D9:17", "D:11:26", "['D15:3', 'D15:5']".
DIA_ID = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")
HEADLINE = (1, 2, 3, 4)
ADVERSARIAL = 5


def dia_ids(value: object) -> tuple[str, ...]:
    """Every dia_id written in `value` (a string or a list of them), normalised, in order, once."""
    text = " ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
    found = (f"D{session}:{turn}" for session, turn in DIA_ID.findall(text))
    return tuple(dict.fromkeys(found))


def session_of(dia_id: str) -> int:
    return int(dia_id[1:].split(":")[0])


@dataclass(frozen=True)
class Retrieved:
    """What one retrieved item stands for: turns (a turn, an observation's sources) and sessions
    (a session summary)."""

    turns: tuple[str, ...] = ()
    sessions: tuple[int, ...] = ()


def recall_at(evidence: Sequence[str], ranked: Sequence[Retrieved], k: int) -> float:
    turns = {turn for item in ranked[:k] for turn in item.turns}
    sessions = {session for item in ranked[:k] for session in item.sessions}
    found = sum(1 for ev in evidence if ev in turns or session_of(ev) in sessions)
    return found / len(evidence)


@dataclass(frozen=True)
class Scored:
    category: int
    recall: dict[int, float]  # k -> recall@k of one question


def by_category(rows: Iterable[Scored], ks: Sequence[int]) -> dict[str, dict[str, float | int]]:
    """Mean recall@k per category, 'overall' over categories 1-4, category 5 only on its own."""
    rows = list(rows)
    groups: dict[str, list[Scored]] = {}
    for row in rows:
        groups.setdefault(f"cat{row.category}", []).append(row)
    groups["overall"] = [row for row in rows if row.category in HEADLINE]
    out: dict[str, dict[str, float | int]] = {}
    for name in sorted(groups):
        members = groups[name]
        if members:
            figures: dict[str, float | int] = {"questions": len(members)}
            figures |= {f"r@{k}": round(fmean(row.recall[k] for row in members), 4) for k in ks}
            out[name] = figures
    return out
