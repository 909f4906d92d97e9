"""The one read of a persona's context (seed 003's call initialisation flow, steps 1-4): the
persona and its version, the subject and its relationship context with the persona's agent,
the subject's long-term facts, the latest summary of each recent session with the persona, and
the persona's procedures. Each list is capped here and trimmed by the memory settings and the
token budget after (context.py).

Facts and summaries seek index memory_record_client_namespace by the subject's namespace prefix
(`subject:S...`); the `subject` test then drops longer subject names (subject:al vs alice).
"""

from __future__ import annotations

from app.domain.memory import LIVE
from app.domain.sessions.fact_rules import LONG_TERM_KINDS
from app.graph.fragments import record_projection

MAX_FACTS = 200
MAX_SESSIONS = 50
MAX_PROCEDURES = 50
FACT_KINDS = LONG_TERM_KINDS
FIELDS = "r {.id, .key, .text, .content, .priority, .session_id, .updated_at, .created_at}"
CONTEXT = f"""
MATCH (p:Persona {{client_id: $client_id, name: $persona}})
OPTIONAL MATCH (p)-[:HAS_VERSION]->(v:PersonaVersion {{client_id: $client_id}})
WHERE v.version = coalesce($version, p.current_version)
OPTIONAL MATCH (s:MemorySubject {{client_id: $client_id, external_ref: $subject}})
OPTIONAL MATCH (s)-[rel:RELATES_TO]->(:Agent {{client_id: $client_id, name: $persona}})
RETURN {record_projection("p")} AS persona, v {{.*}} AS version,
  s {{.id, .display_name}} AS subject,
  rel {{.*}} AS relationship,
  COLLECT {{
    MATCH (r:MemoryRecord {{client_id: $client_id}})
    WHERE r.namespace STARTS WITH $subject_namespace AND r.subject = $subject
      AND r.kind IN $fact_kinds AND {LIVE} AND (r.agent IS NULL OR r.agent = $persona)
    WITH r ORDER BY r.priority DESC, r.updated_at DESC, r.id LIMIT $max_facts
    RETURN {FIELDS}
  }} AS facts,
  COLLECT {{
    MATCH (r:MemoryRecord {{client_id: $client_id}})
    WHERE r.namespace STARTS WITH $sessions_namespace AND r.subject = $subject
      AND r.kind = $episodic AND {LIVE}
    WITH r ORDER BY r.updated_at DESC, r.id
    WITH r.session_id AS session_id, head(collect(r)) AS r
    WITH r ORDER BY r.updated_at DESC, r.id LIMIT $max_sessions
    RETURN {FIELDS}
  }} AS summaries,
  COLLECT {{
    MATCH (r:MemoryRecord {{client_id: $client_id, namespace: $procedures_namespace}})
    WHERE r.kind = $procedural AND {LIVE}
    WITH r ORDER BY r.priority DESC, r.key LIMIT $max_procedures
    RETURN {FIELDS}
  }} AS procedures
"""
