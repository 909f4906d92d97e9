"""Recall for an agent (seed 001 workflow step 4): how its memory hits and its recent action
results merge into one ranked answer (no I/O here).

The two lists have no common score (search scores against nothing for results), so they are
merged by reciprocal rank fusion: an item at rank r (from 1) of its list scores 1 / (60 + r),
the constant of Cormack, Clarke and Buettcher (SIGIR 2009). Memory hits are ranked by search
score; action results by how many of the query's terms their text holds, then newest first.
Equal scores keep memories before results and each list's own order.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from app.domain.kernel.errors import ValidationFailed

FUSION_K = 60
MAX_K = 50
MAX_RESULTS = 50
MAX_TEXT = 2_000
TERM = re.compile(r"\w{2,}")
# Words too common to tell one action result from another.
STOPWORDS = frozenset(
    "a an and are as at be by for from has have in is it its of on or that the this to was "
    "were what when which who why will with".split()
)


class RecallSource(StrEnum):
    MEMORY = "memory"
    ACTION_RESULT = "action_result"


@dataclass(frozen=True)
class RecallItem:
    source: RecallSource
    score: float  # the fused score
    why: list[str]
    record: dict[str, Any] | None = None  # a memory, hydrated
    search_score: float | None = None
    cycle: dict[str, Any] | None = None  # an action result: a completed cycle


def _bounded(value: Any, *, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValidationFailed(f"{field} must be a whole number {low}-{high}", field=field)
    return value


def check_request(fields: dict[str, Any]) -> dict[str, Any]:
    text = fields.get("text")
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_TEXT:
        raise ValidationFailed(f"text must be 1-{MAX_TEXT} characters", field="text")
    return {
        "text": text.strip(),
        "k": _bounded(fields.get("k"), field="k", low=1, high=MAX_K),
        "recent_results": _bounded(
            fields.get("recent_results"), field="recent_results", low=0, high=MAX_RESULTS
        ),
    }


def agent_filter(where: dict[str, Any] | None, agent_name: str) -> dict[str, Any]:
    """The memory filters with the agent's own: another agent named there is a mistake."""
    given = dict(where or {})
    if given.get("agent") not in (None, agent_name):
        raise ValidationFailed(
            "where.agent must be left out: recallForAgent searches agentName's memories",
            field="where",
        )
    return given | {"agent": agent_name}


def terms(text: str | None) -> set[str]:
    return {term.lower() for term in TERM.findall(text or "")} - STOPWORDS


def result_text(cycle: dict[str, Any]) -> str:
    """What an action result says: its proposal and its outcome."""
    parts = [cycle.get("thoughts"), cycle.get("error")]
    parts += [json.dumps(cycle[n]) for n in ("tool_call", "plan", "output") if cycle.get(n)]
    return " ".join(part for part in parts if part)


def rank_results(
    cycles: list[dict[str, Any]], query: str
) -> list[tuple[dict[str, Any], list[str]]]:
    """The results (given newest first) with the query terms each holds, most terms first."""
    wanted = terms(query)
    matched = [(cycle, sorted(wanted & terms(result_text(cycle)))) for cycle in cycles]
    return sorted(matched, key=lambda pair: -len(pair[1]))  # stable: newest first among equals


def fuse(
    hits: list[tuple[dict[str, Any], float, list[str]]],
    results: list[tuple[dict[str, Any], list[str]]],
) -> list[RecallItem]:
    """One ranked list of memory hits (record, search score, why; best first) and ranked
    action results (cycle, matched terms)."""
    items = [
        RecallItem(
            RecallSource.MEMORY,
            1 / (FUSION_K + rank),
            [f"memory #{rank}", *why],
            record=record,
            search_score=score,
        )
        for rank, (record, score, why) in enumerate(hits, start=1)
    ]
    items += [
        RecallItem(
            RecallSource.ACTION_RESULT,
            1 / (FUSION_K + rank),
            [f"action result #{rank}", *(f"term:{term}" for term in matched)],
            cycle=cycle,
        )
        for rank, (cycle, matched) in enumerate(results, start=1)
    ]
    return sorted(items, key=lambda item: -item.score)
