"""A knowledge base's facts as records: a version keeps the facts it did not change (each fact
knows the first version it is in and the version that replaced or removed it), so an edit of
one fact writes one fact, and the search index embeds only what is new."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.domain.kernel.ids import new_id
from app.graph.change_feed import Changed
from app.model.enums import ChangeAction, FactStatus

FACT_FIELDS = ("statement", "topic", "tags", "source")
ACTIVE_FACTS = f"""
MATCH (f:KnowledgeFact {{client_id: $client_id, document_id: $id, status: $active}})
RETURN f {{.id, .key, {", ".join("." + name for name in FACT_FIELDS)}}} AS fact
"""
WRITE_FACTS = """
CALL (d, v) {
  UNWIND $facts.superseded AS fact_id
  MATCH (f:KnowledgeFact {id: fact_id, client_id: $client_id})
  SET f.status = $facts.superseded_status, f.to_version = v.version, f.updated_at = $now
}
CALL (d, v) {
  UNWIND $facts.created AS fact
  CREATE (f:KnowledgeFact)
  SET f = fact
  CREATE (d)-[:HAS_FACT]->(f), (v)-[:INTRODUCED]->(f)
}
"""


@dataclass(frozen=True)
class FactChanges:
    created: list[dict[str, Any]] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)

    def params(self) -> dict[str, Any]:
        return {
            "created": self.created,
            "superseded": self.superseded,
            "superseded_status": FactStatus.SUPERSEDED.value,
        }

    def changed(self, client_id: str, document_id: str) -> list[Changed]:
        """The facts WRITE_FACTS creates and supersedes, each in its knowledge base."""
        made = [(fact["id"], ChangeAction.CREATED) for fact in self.created]
        replaced = [(fact_id, ChangeAction.UPDATED) for fact_id in self.superseded]
        return [
            Changed(client_id, "KnowledgeFact", fact_id, action, parent_id=document_id)
            for fact_id, action in made + replaced
        ]


NO_FACTS = FactChanges()


def fact_changes(
    current: list[dict[str, Any]],
    wanted: list[dict[str, Any]],
    *,
    client_id: str,
    document_id: str,
    version: int,
    now: datetime,
) -> FactChanges:
    """New facts for what is new or changed at `version`, the ids of the facts it replaces or
    removes."""
    by_key = {fact["key"]: fact for fact in current}
    changes = FactChanges()
    for fact in wanted:
        old = by_key.pop(fact["key"], None)
        if old is not None and _same(old, fact):
            continue
        if old is not None:
            changes.superseded.append(old["id"])
        changes.created.append(
            {name: fact.get(name) for name in ("key", *FACT_FIELDS) if fact.get(name) is not None}
            | {
                "id": new_id(),
                "client_id": client_id,
                "document_id": document_id,
                "from_version": version,
                "status": FactStatus.ACTIVE.value,
                "created_at": now,
                "updated_at": now,
            }
        )
    changes.superseded.extend(old["id"] for old in by_key.values())
    return changes


def _same(old: dict[str, Any], new: dict[str, Any]) -> bool:
    return all((old.get(name) or None) == (new.get(name) or None) for name in FACT_FIELDS)
