"""The composite prompt of a persona for a subject (seed 003 "Composite System Prompt"): one
line per item under a header per section, packed in section order within a token budget.

Packing is greedy (app/retrieval/budget.py): a line that does not fit is skipped and counted,
and shorter lines after it may still fit; a section's header is paid for with its first line,
and a section with no line that fits is left out. Each line is counted with its newline, so
the prompt's own estimate never exceeds tokens_used.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from app.model.enums import PersonaSection
from app.retrieval.budget import TokenBudget, estimate_tokens

HEADERS = {
    PersonaSection.CORE: "=== CORE IDENTITY ===",
    PersonaSection.RELATIONSHIP: "=== YOUR RELATIONSHIP WITH {name} ===",
    PersonaSection.FACTS: "=== WHAT YOU KNOW ABOUT {name} ===",
    PersonaSection.RECENT_SESSIONS: "=== RECENT CONTEXT ===",
    PersonaSection.PROCEDURES: "=== CONVERSATION STYLE ===",
}


@dataclass(frozen=True)
class Line:
    """A candidate line and the record it says (None: the relationship, which is no record)."""

    text: str
    record_id: str | None = None

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text + "\n")


@dataclass
class Section:
    section: PersonaSection
    title: str
    lines: list[Line] = field(default_factory=list)
    tokens: int = 0

    def text(self) -> str:
        return "".join(f"{line}\n" for line in [self.title, *(x.text for x in self.lines)])


@dataclass
class Packed:
    sections: list[Section]
    budget: TokenBudget

    @property
    def prompt(self) -> str:
        return "".join(section.text() for section in self.sections)

    @property
    def used_ids(self) -> list[str]:
        ids = (line.record_id for s in self.sections for line in s.lines if line.record_id)
        return list(dict.fromkeys(ids))


def pack(candidates: dict[PersonaSection, list[Line]], *, name: str, budget: int) -> Packed:
    """The lines that fit, section by section in PersonaSection order."""
    spend = TokenBudget(budget)
    sections = []
    for kind in PersonaSection:
        section = Section(kind, HEADERS[kind].format(name=name.upper()))
        header = estimate_tokens(section.title + "\n")
        for line in candidates.get(kind, []):
            cost = line.tokens + (0 if section.lines else header)
            if spend.take(cost):
                section.lines.append(line)
                section.tokens += cost
        if section.lines:
            sections.append(section)
    return Packed(sections, spend)


def _scalar(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def core_lines(version: dict[str, object]) -> list[Line]:
    """The system prompt, the traits on one line, then each behavioural rule."""
    version_id = str(version["id"])
    lines = [Line(str(version["system_prompt"]), version_id)]
    traits = version.get("traits") or {}
    if isinstance(traits, dict) and traits:
        said = "; ".join(f"{name}: {_scalar(value)}" for name, value in traits.items())
        lines.append(Line(f"Traits: {said}", version_id))
    rules = version.get("behavioural_rules") or []
    lines += [Line(f"- {rule}", version_id) for rule in _strings(rules)]
    return lines


def _strings(values: object) -> Iterable[str]:
    return [str(value) for value in values] if isinstance(values, list) else []
