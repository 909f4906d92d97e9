"""Learning a session's extracted facts inside endSession's transaction: each fact becomes a
semantic memory of the subject at subject:S/agent:A/facts, linked
(session)-[:LEARNED]->(record), unless the subject's memory already says it.

A fact is checked, in order, against the subject's live long-term memories visible to the
session's agent (its own and those of no agent; the newest DEDUPE_WINDOW of them) and against
the facts before it in the same call:
- its key names a fact at subject:S/agent:A/facts: UNCHANGED when the text is near-identical
  (fact_rules.normalised), else UPDATED (a new version; the old one is kept);
- another memory says a near-identical text: DUPLICATE, nothing is written;
- else CREATED.
Every fact's memory (written or found) is linked to the session, so the session names what it
taught even when nothing new was written.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.domain.kernel.principal import Principal
from app.domain.memory import LIVE, RECORD_MAP, check_memory, join_namespace, write_memory
from app.domain.sessions.fact_rules import (
    FACTS_PATH,
    LONG_TERM_KINDS,
    Fact,
    fact_fields,
    normalised,
    require_subject,
)
from app.graph.executor import Tx
from app.graph.values import plain
from app.model.enums import FactOutcome

DEDUPE_WINDOW = 5_000
KNOWN = f"""
MATCH (r:MemoryRecord {{client_id: $client_id}})
WHERE r.namespace STARTS WITH $subject_namespace AND r.subject = $subject
  AND r.kind IN $kinds AND {LIVE} AND (r.agent IS NULL OR r.agent = $agent)
WITH r ORDER BY r.updated_at DESC LIMIT $limit
RETURN r.id AS id, r.namespace AS namespace, r.key AS key, r.text AS text
"""
LINK = f"""
MATCH (s:MemorySession {{id: $session_id, client_id: $client_id}})
UNWIND $ids AS id
MATCH (r:MemoryRecord {{id: id, client_id: $client_id}})
MERGE (s)-[l:LEARNED]->(r)
ON CREATE SET l.created_at = $now
RETURN {RECORD_MAP} AS record
"""


@dataclass(frozen=True)
class LearnedFact:
    outcome: FactOutcome
    record: dict[str, Any]


@dataclass
class _Known:
    """The subject's memories by normalised text, and the facts' own ones by key."""

    home: str
    by_text: dict[str, str]
    by_key: dict[str, tuple[str, str]]  # key -> (id, normalised text)

    def add(self, record_id: str, namespace: str, key: str | None, text: str | None) -> None:
        said = normalised(text)
        if said:
            self.by_text.setdefault(said, record_id)
        if key is not None and namespace == self.home:
            self.by_key[key] = (record_id, said)


async def _known(tx: Tx, principal: Principal, session: dict[str, Any], now: datetime) -> _Known:
    subject, agent = session["subject"], session["agent"]
    home = join_namespace({"subject": subject, "agent": agent, "path": [FACTS_PATH]})
    params = {
        "client_id": principal.client_id,
        "subject": subject,
        "agent": agent,
        "subject_namespace": join_namespace({"subject": subject}),
        "kinds": list(LONG_TERM_KINDS),
        "limit": DEDUPE_WINDOW,
        "now": now,
    }
    known = _Known(home, {}, {})
    for row in await tx.run(KNOWN, params):  # newest first: the newest of a text wins
        known.add(row["id"], row["namespace"], row["key"], row["text"])
    return known


async def learn_facts(
    tx: Tx, *, principal: Principal, session: dict[str, Any], facts: list[Fact], now: datetime
) -> list[LearnedFact]:
    """The outcome of each fact, in order (see the module doc)."""
    require_subject(session, facts)
    if not facts:
        return []
    known = await _known(tx, principal, session, now)
    outcomes: list[tuple[FactOutcome, str]] = []
    for fact in facts:
        said = fact.normalised
        found = known.by_key.get(fact.key) if fact.key is not None else None
        if found is not None and found[1] == said:
            outcomes.append((FactOutcome.UNCHANGED, found[0]))
            continue
        if found is None and said in known.by_text:
            outcomes.append((FactOutcome.DUPLICATE, known.by_text[said]))
            continue
        memory = check_memory(fact_fields(session, fact), principal=principal, now=now)
        written = await write_memory(tx, principal=principal, memory=memory, now=now)
        record_id = str(written.record["id"])
        known.add(record_id, memory.namespace, fact.key, fact.text)
        changed = FactOutcome.CREATED if written.change != "update" else FactOutcome.UPDATED
        outcomes.append((changed, record_id))
    params = {
        "session_id": session["id"],
        "client_id": principal.client_id,
        "ids": list(dict.fromkeys(record_id for _, record_id in outcomes)),
        "now": now,
    }
    records = {row["record"]["id"]: plain(row["record"]) for row in await tx.run(LINK, params)}
    return [LearnedFact(outcome, records[record_id]) for outcome, record_id in outcomes]
