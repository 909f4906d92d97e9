"""The Cypher of expiry: purging expired sessions and threads, and trimming capped threads.

Each purge takes the node's write lock and checks its expiry again under it: an entry put or
an event appended meanwhile slides expires_at forward, and the node is kept. Every query
leaves the URIs of the objects its deleted nodes pointed at, so that the caller removes those
no node points at any more once the transaction is committed, and, per session or thread,
`changed`: its id and its entries' or events' (and summaries') ids, for the change feed.
"""

from __future__ import annotations

from app.domain.memory.content import purge_record
from app.graph.fragments import lock

# The objects an event `x` points at: its long text and its media.
EVENT_URIS = "[u IN coalesce(x.media_uris, []) + [x.text_uri] WHERE u IS NOT NULL]"
# Over a locked thread `t`: its events up to sequence event_count - max_events deleted, and
# trimmed_through moved there; leaves `trimmed` (how many), `event_ids` (theirs) and `uris`.
TRIM_EVENTS = f"""
WITH t, t.event_count - t.max_events AS through
CALL (t, through) {{
  OPTIONAL MATCH (e:ConversationEvent {{thread_id: t.id}})
  WHERE e.sequence <= through AND e.client_id = t.client_id
  WITH collect(e) AS gone, collect(e.id) AS event_ids
  WITH gone, event_ids, reduce(all = [], x IN gone | all + {EVENT_URIS}) AS uris
  FOREACH (x IN gone | DETACH DELETE x)
  RETURN size(gone) AS trimmed, event_ids, uris
}}
SET t.trimmed_through = CASE WHEN through > coalesce(t.trimmed_through, 0) THEN through
                             ELSE t.trimmed_through END
"""
# The client's capped threads holding more events than their cap, at most $limit of them.
TRIM_CAPPED = f"""
MATCH (t:ConversationThread)
WHERE t.max_events IS NOT NULL AND ($client_id IS NULL OR t.client_id = $client_id)
  AND t.event_count - coalesce(t.trimmed_through, 0) > t.max_events
WITH t LIMIT $limit
{lock("t")}
{TRIM_EVENTS}
RETURN t.client_id AS client_id, count(t) AS threads, sum(trimmed) AS trimmed,
       collect(uris) AS uris, collect({{id: t.id, events: event_ids}}) AS changed
"""
_EXPIRED = """
MATCH ({v}:{label})
WHERE {v}.expires_at <= $now AND ($client_id IS NULL OR {v}.client_id = $client_id)
WITH {v} LIMIT $limit
{lock}
WITH {v} WHERE {v}.expires_at <= $now
"""
# A thread with its events and summary versions (the objects of their text, media and long
# summaries). Engagement events about it stay, without the CONCERNS relationship.
PURGE_THREADS = (
    _EXPIRED.format(v="t", label="ConversationThread", lock=lock("t"))
    + f"""CALL (t) {{
  OPTIONAL MATCH (t)-[:HAS_EVENT]->(e:ConversationEvent)
  WITH collect(e) AS gone, collect(e.id) AS event_ids
  WITH gone, event_ids, reduce(all = [], x IN gone | all + {EVENT_URIS}) AS uris
  FOREACH (x IN gone | DETACH DELETE x)
  RETURN size(gone) AS events, event_ids, uris AS event_uris
}}
CALL (t) {{
  OPTIONAL MATCH (t)-[:HAS_SUMMARY]->(s:ThreadSummary)
  WITH collect(s) AS gone, collect(s.id) AS summary_ids, collect(s.summary_long_uri) AS uris
  FOREACH (s IN gone | DETACH DELETE s)
  RETURN summary_ids, uris AS summary_uris
}}
WITH t, t.client_id AS client_id, events,
     {{id: t.id, events: event_ids, summaries: summary_ids}} AS changed,
     event_uris + summary_uris + [u IN [t.summary_long_uri] WHERE u IS NOT NULL] AS uris
DETACH DELETE t
RETURN client_id, count(*) AS threads, sum(events) AS events, collect(uris) AS uris,
       collect(changed) AS changed
"""
)
# A session with its entries (their versions and artifacts), its own artifacts and the agents'
# states scoped to it. Its summary (an episodic record, once flushed) is long-term memory and
# stays.
PURGE_SESSIONS = (
    _EXPIRED.format(v="s", label="MemorySession", lock=lock("s"))
    + f"""CALL (s) {{
  MATCH (s)-[:HAS_ENTRY]->(r:MemoryRecord)
  {purge_record("r.id AS id,")}
  RETURN count(*) AS entries, collect(id) AS entry_ids,
         reduce(all = [], u IN collect(uris) | all + u) AS entry_uris
}}
CALL (s) {{
  OPTIONAL MATCH (s)-[:HAS_ARTIFACT]->(a:MemoryArtifact)
  WITH collect(a) AS gone, collect(a.uri) AS uris
  FOREACH (a IN gone | DETACH DELETE a)
  RETURN uris AS artifact_uris
}}
CALL (s) {{
  OPTIONAL MATCH (s)-[:HAS_AGENT_STATE]->(x:AgentSessionState)
  WITH collect(x) AS gone
  FOREACH (x IN gone | DETACH DELETE x)
}}
WITH s, s.client_id AS client_id, entries, {{id: s.id, entries: entry_ids}} AS changed,
     entry_uris + artifact_uris AS uris
DETACH DELETE s
RETURN client_id, count(*) AS sessions, sum(entries) AS entries, collect(uris) AS uris,
       collect(changed) AS changed
"""
)
