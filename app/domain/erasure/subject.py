"""Erasing a subject (seed 004, the right to be forgotten): everything the client holds about
one subject, in one write transaction, then the stored objects nothing points at any more.

About the subject means: its MemorySubject (profile, preferences, relationship context), every
MemoryRecord whose namespace names it (sessions' entries and summaries included, with their
versions and artifacts), and every MemorySession of it (with its artifacts, its agents'
session states, and any entry or summary it still links to). Access log entries about an
erased node keep their row (who did what, when, how it went) but lose the target, detail and
request data, as the seed's ON DELETE SET NULL does. An unknown subject, or another
client's, erases nothing: all counts 0, so an erasure can be repeated.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.agents.subject_rules import check_ref
from app.domain.kernel.principal import REVIEWER_ROLES, Principal
from app.domain.memory import access_log, audited, purge_record, remove_unreferenced
from app.graph.change_feed import Changed
from app.graph.executor import GraphExecutor
from app.model.enums import ChangeAction

# Records first (the subject's sessions still lead to their entries), then the sessions, the
# subject, and the access log entries about any of them. Ids and object URIs are read before
# each deletion: a deleted node's properties cannot be read in the same transaction.
ERASE_SUBJECT = f"""
CALL () {{
  OPTIONAL MATCH (s:MemorySession {{client_id: $client_id, subject: $subject}})
  RETURN collect(s) AS sessions
}}
CALL (sessions) {{
  CALL (sessions) {{
    MATCH (r:MemoryRecord {{client_id: $client_id, subject: $subject}})
    RETURN r
    UNION
    UNWIND sessions AS s
    MATCH (s)-[:HAS_ENTRY|SUMMARIZED_AS]->(r:MemoryRecord)
    RETURN r
  }}
  {purge_record("r.id AS id, [a IN artifacts | a.id] AS artifact_ids,")}
  RETURN count(id) AS records, collect(id) AS erased_records, sum(size(versions)) AS versions,
         sum(size(artifact_ids)) AS record_artifacts,
         reduce(all = [], x IN collect([id] + artifact_ids) | all + x) AS record_ids,
         reduce(all = [], x IN collect(uris) | all + x) AS record_uris
}}
CALL (sessions) {{
  UNWIND sessions AS s
  OPTIONAL MATCH (s)-[:HAS_ARTIFACT]->(a:MemoryArtifact)
  WITH s, collect(a) AS artifacts
  OPTIONAL MATCH (s)-[:HAS_AGENT_STATE]->(state:AgentSessionState)
  WITH s, artifacts, collect(state) AS states
  WITH s, artifacts, states, s.id AS session_id, [s.id] + [x IN artifacts + states | x.id] AS ids,
       [a IN artifacts | a.uri] + [k IN keys(s) WHERE k ENDS WITH '_uri' | s[k]] AS uris
  FOREACH (x IN artifacts + states | DETACH DELETE x)
  DETACH DELETE s
  RETURN count(*) AS sessions_erased, collect(session_id) AS erased_sessions,
         sum(size(artifacts)) AS session_artifacts,
         sum(size(states)) AS agent_states,
         reduce(all = [], x IN collect(ids) | all + x) AS session_ids,
         reduce(all = [], x IN collect(uris) | all + x) AS session_uris
}}
CALL () {{
  OPTIONAL MATCH (p:MemorySubject {{client_id: $client_id, external_ref: $subject}})
  WITH p, p.id AS id
  DETACH DELETE p
  RETURN [x IN collect(id) WHERE x IS NOT NULL] AS subject_ids
}}
WITH records, versions, record_artifacts, sessions_erased, session_artifacts, agent_states,
     subject_ids, erased_records, erased_sessions,
     record_ids + session_ids + subject_ids AS gone, record_uris + session_uris AS uris
CALL (gone) {{
  MATCH (e:AccessLogEntry {{client_id: $client_id}}) WHERE e.target_id IN gone
  SET e.target_id = null, e.detail = 'erased', e.request_data = null
  RETURN count(e) AS scrubbed
}}
RETURN size(subject_ids) AS subjects, records, versions,
       record_artifacts + session_artifacts AS artifacts, sessions_erased AS sessions,
       agent_states, scrubbed, uris,
       {{MemorySubject: subject_ids, MemoryRecord: erased_records,
         MemorySession: erased_sessions}} AS erased
"""


@dataclass(frozen=True)
class Erasure:
    """What one erasure removed (all 0 when there was nothing about the subject)."""

    subject: str
    subjects: int
    records: int
    versions: int
    artifacts: int
    sessions: int
    agent_states: int
    objects: int
    access_log_entries: int

    def describe(self) -> str:
        return (
            f"{self.subjects} subject, {self.records} records, {self.versions} versions, "
            f"{self.artifacts} artifacts, {self.sessions} sessions, "
            f"{self.agent_states} agent states, {self.objects} objects, "
            f"{self.access_log_entries} log entries"
        )


def erased_changes(client_id: str, rows: list[dict[str, Any]]) -> list[Changed]:
    """The subject, records and sessions erased (ERASE_SUBJECT's `erased`: label -> ids); what
    went with them (versions, artifacts, agents' session states) is theirs."""
    return [
        Changed(client_id, label, record_id, ChangeAction.DELETED)
        for row in rows
        for label, ids in row["erased"].items()
        for record_id in ids
    ]


async def erase_subject(
    graph: GraphExecutor, artifacts: ArtifactStore, *, principal: Principal, subject: str
) -> Erasure:
    """Erase everything about `subject` (an externalRef, the namespace's subject part) in the
    caller's client: reviewers and admins only."""
    with audited(principal, "erase", target_type="MemorySubject") as audit:
        principal.require(*REVIEWER_ROLES)
        ref = check_ref(subject, field="subject")
        writer = access_log.installed()
        if writer is not None:  # entries still buffered about the subject are scrubbed too
            await writer.flush()
        params = {"client_id": principal.client_id, "subject": ref}
        noted = partial(erased_changes, principal.client_id)
        row = (await graph.write(ERASE_SUBJECT, params, changed=noted))[0]
        objects = await remove_unreferenced(graph, artifacts, list(row["uris"]))
        erased = Erasure(
            subject=ref,
            subjects=int(row["subjects"]),
            records=int(row["records"]),
            versions=int(row["versions"]),
            artifacts=int(row["artifacts"]),
            sessions=int(row["sessions"]),
            agent_states=int(row["agent_states"]),
            objects=objects,
            access_log_entries=int(row["scrubbed"]),
        )
        audit.detail = erased.describe()
        return erased
