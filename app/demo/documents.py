"""The demo client's five constraint documents as rows, and which of their versions a snapshot
freezes. Version 1 of each is written two weeks before the first plan; then one version every
few plan-weeks per kind, a few days into the week, after that week's approvals, so a plan
approved in week w freezes the versions made before it and later edits stand next to them.

The content is checked and encoded by the domain's own helpers (schemas, content, facts), so
the demo stores what an edit through the API would. A kind the client already has a document of
(an earlier run with another seed) is not written again: snapshots freeze its versions.
"""

from __future__ import annotations

import bisect
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from app.demo import document_vocab as d
from app.demo.context import PLANS_PER_WEEK, week_start
from app.demo.document_edits import next_version
from app.demo.rows import Rows, seeded_uuid
from app.domain.constraints.content import encode
from app.domain.constraints.facts import fact_changes
from app.domain.constraints.freeze import SNAPSHOT_FIELD
from app.domain.constraints.schemas import check_content
from app.model.enums import ConstraintKind as K
from app.model.enums import FactStatus

ONBOARDING = timedelta(days=14)  # version 1: this long before the first plan's week
PERIOD_WEEKS = {
    K.BRANDKIT: 8,
    K.KNOWLEDGE_BASE: 4,
    K.AUTONOMY_POLICIES: 26,
    K.PROVIDER_CONFIG: 12,
    K.BLUEPRINT_SET: 16,
}
# Days into an edit's week: after the week's approvals (day 0.2-0.3, shapes.py), apart per kind.
EDIT_DAY = {
    K.BRANDKIT: 3.0,
    K.KNOWLEDGE_BASE: 2.0,
    K.AUTONOMY_POLICIES: 4.0,
    K.PROVIDER_CONFIG: 1.5,
    K.BLUEPRINT_SET: 5.0,
}
EXISTING_VERSIONS = """
MATCH (:ConstraintDocument {client_id: $client_id})-[:HAS_VERSION]->(v:ConstraintVersion)
RETURN v.kind AS kind, v.id AS id, v.created_at AS created_at
ORDER BY v.version
"""


@dataclass
class History:
    """Per kind, its versions' creation times and ids, oldest first."""

    times: dict[K, list[datetime]] = field(default_factory=dict)
    ids: dict[K, list[str]] = field(default_factory=dict)

    def add(self, kind: K, *, at: datetime, version_id: str) -> None:
        self.times.setdefault(kind, []).append(at)
        self.ids.setdefault(kind, []).append(version_id)

    def frozen_at(self, moment: datetime) -> dict[str, str]:
        """Snapshot field -> the id of the kind's version current at `moment` (its first
        version when all came later: documents written by hand after the demo's dates)."""
        frozen = {}
        for kind, times in self.times.items():
            at = max(0, bisect.bisect_right(times, moment) - 1)
            frozen[SNAPSHOT_FIELD[kind]] = self.ids[kind][at]
        return frozen


def build_documents(
    rows: Rows, *, client_id: str, seed: int, plans: int, existing: list[dict[str, Any]]
) -> History:
    """Append the documents of the kinds `existing` (version rows: kind, id, created_at) lacks
    to `rows`; the history of all five kinds."""
    history = History()
    for row in existing:
        history.add(K(row["kind"]), at=row["created_at"], version_id=row["id"])
    ids = random.Random(f"{client_id}:{seed}:documents")
    times = random.Random(f"{seed}:documents")
    first = week_start(index=0, plans=plans)
    weeks = (plans - 1) // PLANS_PER_WEEK + 1
    for kind in K:
        if kind in history.times:
            continue
        starts = [first - ONBOARDING] + [
            first + timedelta(weeks=week, days=EDIT_DAY[kind])
            for week in range(0, weeks, PERIOD_WEEKS[kind])
        ]
        moments = [start + timedelta(hours=times.randint(1, 9)) for start in starts]
        _document(rows, history, kind, client_id=client_id, moments=moments, ids=ids)
    return history


def _document(
    rows: Rows,
    history: History,
    kind: K,
    *,
    client_id: str,
    moments: list[datetime],
    ids: random.Random,
) -> None:
    document_id = seeded_uuid(ids)
    content, reason = d.FIRST_CONTENT[kind], d.FIRST_REASON
    facts: list[dict[str, Any]] = []  # the knowledge base's facts in force
    for number, at in enumerate(moments, start=1):
        if number > 1:
            content, reason = next_version(kind, content, number, at)
        content = check_content(kind, content)
        encoded = encode(content)
        version: dict[str, Any] = {
            "id": seeded_uuid(ids),
            "client_id": client_id,
            "document_id": document_id,
            "kind": kind.value,
            "version": number,
            "title": d.TITLES[kind],
            "inline_content": encoded.data.decode(),
            "content_sha256": encoded.sha256,
            "content_size": len(encoded.data),
            "author": d.EDITORS[number % len(d.EDITORS)],
            "reason": reason,
            "created_at": at,
            "updated_at": at,
        }
        rows.nodes["ConstraintVersion"].append(version)
        rows.rels["HAS_VERSION"].append({"from_id": document_id, "to_id": version["id"]})
        history.add(kind, at=at, version_id=version["id"])
        if kind is K.KNOWLEDGE_BASE:
            facts = _facts(rows, facts, content["facts"], version=version, ids=ids)
    rows.rels["CURRENT_VERSION"].append({"from_id": document_id, "to_id": version["id"]})
    rows.nodes["ConstraintDocument"].append(
        {
            "id": document_id,
            "client_id": client_id,
            "kind": kind.value,
            "title": d.TITLES[kind],
            "current_version": version["version"],
            "current_version_id": version["id"],
            "created_at": moments[0],
            "updated_at": moments[-1],
        }
    )


def _facts(
    rows: Rows,
    current: list[dict[str, Any]],
    wanted: list[dict[str, Any]],
    *,
    version: dict[str, Any],
    ids: random.Random,
) -> list[dict[str, Any]]:
    """The facts of a new knowledge base version as the domain's rules make them (a new fact
    for each new or changed one; the ones it replaces or removes closed at this version);
    returns the facts in force after it. `current` holds the very rows written, so closing one
    here closes its row."""
    changes = fact_changes(
        current,
        wanted,
        client_id=version["client_id"],
        document_id=version["document_id"],
        version=version["version"],
        now=version["created_at"],
    )
    closed = set(changes.superseded)
    for fact in current:
        if fact["id"] in closed:
            fact["to_version"], fact["updated_at"] = version["version"], version["created_at"]
            fact["status"] = FactStatus.SUPERSEDED.value
    for fact in changes.created:
        fact["id"] = seeded_uuid(ids)  # fact_changes draws random ids; the demo's are seeded
        rows.nodes["KnowledgeFact"].append(fact)
        rows.rels["HAS_FACT"].append({"from_id": version["document_id"], "to_id": fact["id"]})
        rows.rels["INTRODUCED"].append({"from_id": version["id"], "to_id": fact["id"]})
    return [fact for fact in current if fact["id"] not in closed] + changes.created
