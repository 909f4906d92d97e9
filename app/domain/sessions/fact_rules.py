"""Facts extracted from a session by the caller's own model (seed 003 "After call: extract key
facts, update long-term memory"): what endSession accepts, and when two texts say the same.

Near-identical text is decided by a normalised form, not by embeddings: Unicode NFKC, case
folded, every run of characters other than letters and digits made one space. It needs no
model, holds inside the endSession transaction, and finds records the embedding worker has not
indexed yet (a fact learned a minute ago); paraphrases are not caught (the caller's model can
send the key of the fact it restates).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from app.domain.kernel.errors import ValidationFailed
from app.domain.memory import rules
from app.domain.memory import value_rules as vrules
from app.model.enums import MemoryKind

MAX_FACTS = 100
MAX_FACT_TEXT = 2_000
FACTS_PATH = "facts"
FACT_TAG = "session-fact"
# The kinds of the long-term memory facts are deduplicated against, and personaContext reads.
LONG_TERM_KINDS = (MemoryKind.SEMANTIC.value,)
_NOT_WORD = re.compile(r"[\W_]+")


@dataclass(frozen=True)
class Fact:
    text: str
    key: str | None
    tags: list[str]
    priority: int

    @property
    def normalised(self) -> str:
        return normalised(self.text)


def normalised(text: str | None) -> str:
    """The form two near-identical texts share ('Allergic to peanuts.' == 'allergic to PEANUTS')."""
    folded = unicodedata.normalize("NFKC", text or "").casefold()
    return " ".join(_NOT_WORD.sub(" ", folded).split())


def _fact(value: Any, position: int) -> Fact:
    field = f"facts[{position}]"
    if not isinstance(value, dict):
        raise ValidationFailed(f"{field} must be an object with text", field="facts")
    text = value.get("text")
    if not isinstance(text, str) or not normalised(text) or len(text) > MAX_FACT_TEXT:
        raise ValidationFailed(
            f"{field}.text must be 1-{MAX_FACT_TEXT} characters with a letter or digit",
            field="facts",
        )
    tags = vrules.check_tags(value.get("tags"))
    return Fact(
        text=" ".join(text.split()),
        key=rules.check_key(value.get("key"), field=f"{field}.key"),
        tags=list(dict.fromkeys([*tags, FACT_TAG])),
        priority=rules.check_priority(value.get("priority")),
    )


def check_facts(values: Any) -> list[Fact]:
    """At most 100 facts, each text (required), key, tags and priority as a memory's."""
    if values is None:
        return []
    if not isinstance(values, list) or len(values) > MAX_FACTS:
        raise ValidationFailed(f"facts must list at most {MAX_FACTS} facts", field="facts")
    return [_fact(value, position) for position, value in enumerate(values)]


def fact_fields(session: dict[str, Any], fact: Fact) -> dict[str, Any]:
    """The memory fields of a fact: semantic, at subject:S/agent:A/facts, said by the agent."""
    return {
        "subject": session["subject"],
        "agent": session["agent"],
        "path": [FACTS_PATH],
        "key": fact.key,
        "kind": MemoryKind.SEMANTIC.value,
        "text": fact.text,
        "tags": fact.tags,
        "priority": fact.priority,
        "source_agent": session["agent"],
    }


def require_subject(session: dict[str, Any], facts: list[Fact]) -> None:
    if facts and session.get("subject") is None:
        raise ValidationFailed(
            f"session {session['id']} has no subject: extracted facts are about a subject "
            "(start the session with one)",
            field="facts",
        )
