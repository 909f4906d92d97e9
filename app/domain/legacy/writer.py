"""The importers' writes: one transaction per batch of lines, one UNWIND query per node type.

Each node is found or created by its unique key (a record's (client_id, namespace, key), a
session's or a subject's (client_id, external_ref)), so a re-import finds what the first one
wrote and writes nothing. A record or session is new when the id it holds is the one this write
gave it: records have random ids; a session's id is derived from its legacy id, so its write
also sets a random token, read back and removed in the same query.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from app.domain.agents.repository import AGENT_ROW, new_agent
from app.domain.kernel.ids import new_id
from app.domain.legacy.batch import Batch
from app.graph.change_feed import Changed, unrecorded
from app.graph.executor import Tx
from app.graph.fragments import merge_agent
from app.model.enums import ChangeAction

MERGE_AGENT = f"{merge_agent()}\nRETURN {AGENT_ROW}"
# The label of each step's nodes (a row per node: {line, created, type, id}).
LABELS = {"subjects": "MemorySubject", "records": "MemoryRecord", "sessions": "MemorySession"}
# The agent of a record's namespace REMEMBERED it (as `remember` links it, write.py).
LINK_AGENT = """CALL (r, created) {
  WITH r WHERE created AND r.agent IS NOT NULL
  MATCH (a:Agent {client_id: $client_id, name: r.agent})
  MERGE (a)-[:REMEMBERED]->(r)
}"""
MERGE_RECORDS = f"""
UNWIND $records AS row
MERGE (r:MemoryRecord {{client_id: $client_id, namespace: row.props.namespace, key: row.props.key}})
ON CREATE SET r += row.props
WITH r, row, r.id = row.props.id AS created
{LINK_AGENT}
RETURN row.line AS line, created, r.id AS id
"""
# A new session's entries, summary and their agent links; a session found is left as it is.
MERGE_SESSIONS = """
UNWIND $sessions AS row
MERGE (s:MemorySession {client_id: $client_id, external_ref: row.props.external_ref})
ON CREATE SET s += row.props, s.import_token = row.token
WITH s, row, coalesce(s.import_token = row.token, false) AS created
REMOVE s.import_token
CALL (s, row, created) {
  WITH s, row WHERE created
  UNWIND row.entries AS props
  CREATE (s)-[:HAS_ENTRY]->(r:MemoryRecord)
  SET r = props
}
CALL (s, row, created) {
  WITH s, row WHERE created AND row.summary IS NOT NULL
  CREATE (s)-[:SUMMARIZED_AS]->(m:MemoryRecord)
  SET m = row.summary, s.summary_record_id = m.id
  WITH s, m
  MATCH (s)-[:HAS_ENTRY]->(e:MemoryRecord)
  CREATE (m)-[:SUMMARIZES]->(e)
}
CALL (s, created) {
  WITH s WHERE created
  MATCH (a:Agent {client_id: $client_id, name: s.agent})
  MATCH (s)-[:HAS_ENTRY|SUMMARIZED_AS]->(r:MemoryRecord)
  CREATE (a)-[:REMEMBERED]->(r)
}
RETURN row.line AS line, created, s.id AS id,
       [r IN row.entries + [row.summary] WHERE r IS NOT NULL | r.id] AS record_ids
"""
MERGE_SUBJECTS = """
UNWIND $subjects AS row
MERGE (s:MemorySubject {client_id: $client_id, external_ref: row.external_ref})
ON CREATE SET s += row.props
// A subject the API made first gets the legacy profile and preferences it lacks.
ON MATCH SET
  s.updated_at = CASE WHEN (s.profile IS NULL AND row.props.profile IS NOT NULL)
                        OR (s.preferences IS NULL AND row.props.preferences IS NOT NULL)
                      THEN $now ELSE s.updated_at END,
  s.profile = coalesce(s.profile, row.props.profile),
  s.preferences = coalesce(s.preferences, row.props.preferences)
RETURN row.line AS line, s.id = row.props.id AS created, s.id AS id,
       s.updated_at = $now AS updated
"""


async def write_batch(
    tx: Tx, batch: Batch, *, client_id: str, now: datetime
) -> list[dict[str, Any]]:
    """Every line's nodes; a row {line, created} per record, session and subject."""
    changes: list[Changed] = []
    for agent in sorted(batch.agents):
        params = {"client_id": client_id, "agent_name": agent, "agent_id": new_id(), "now": now}
        changes += new_agent(client_id, (await tx.run(MERGE_AGENT, params))[0])
    rows: list[dict[str, Any]] = []
    steps = ((MERGE_SUBJECTS, "subjects"), (MERGE_RECORDS, "records"), (MERGE_SESSIONS, "sessions"))
    for query, name in steps:
        items = getattr(batch, name)
        if items:
            params = {"client_id": client_id, "now": now, name: items}
            rows += [dict(row) | {"type": name} for row in await tx.run(query, params)]
    changes += [change for row in rows for change in _written(client_id, row)]
    _note(changes)
    return rows


def _written(client_id: str, row: dict[str, Any]) -> list[Changed]:
    """What one row's write changed: its node, and a new session's records (the session's)."""
    label = LABELS[row["type"]]
    if row["created"]:
        made = [Changed(client_id, label, row["id"], ChangeAction.CREATED)]
        return made + [
            Changed(client_id, LABELS["records"], record_id, ChangeAction.CREATED, row["id"])
            for record_id in row.get("record_ids", [])
        ]
    if row.get("updated"):  # a subject found, given the legacy profile it lacked
        return [Changed(client_id, label, row["id"], ChangeAction.UPDATED)]
    return []


def _note(changes: list[Changed]) -> None:
    """Each change once (a batch may hold a subject twice); a batch that found everything it
    holds (a re-import) wrote only values already there."""
    if not changes:
        unrecorded()
    for change in dict.fromkeys(changes):
        change.note()
