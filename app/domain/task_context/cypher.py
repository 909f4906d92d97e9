"""The direct reads of the bounded context (the ranked sections come from search)."""

from __future__ import annotations

# The plan and the snapshot its constraints_ref points at (both of the caller's client).
PLAN = """
MATCH (p:Plan {id: $plan_id, client_id: $client_id})
OPTIONAL MATCH (s:ConstraintsSnapshot {id: p.constraints_ref, client_id: $client_id})
RETURN p {.id, .name, .status, .summary, .constraints_ref} AS plan,
       s {.id, .brandkit_version_id, .kb_version_id, .policies_version_id,
          .provider_config_version_id, .blueprint_set_version_id, .notes} AS snapshot
"""

# Plan nodes not (yet) found by search: best quality first, then the most recently changed.
PLAN_NODES_FILL = """
MATCH (n:PlanNode {plan_id: $plan_id, client_id: $client_id})
WHERE NOT n.id IN $exclude
WITH n ORDER BY coalesce(n.quality_score, -1) DESC, n.updated_at DESC, n.id LIMIT $limit
RETURN n {.id, .node_type, .title, .status, .summary, .quality_score} AS node
"""

# The given threads, in the order given; ids of another client simply do not match.
THREADS = """
UNWIND range(0, size($thread_ids) - 1) AS position
MATCH (t:ConversationThread {id: $thread_ids[position], client_id: $client_id})
RETURN position, t {.*} AS thread
ORDER BY position
"""

# The latest events of each thread, oldest first within a thread.
RECENT_EVENTS = """
UNWIND range(0, size($thread_ids) - 1) AS position
CALL (position) {
  MATCH (e:ConversationEvent {thread_id: $thread_ids[position], client_id: $client_id})
  WITH e ORDER BY e.sequence DESC LIMIT $per_thread
  RETURN e
}
RETURN e {.id, .thread_id, .sequence, .direction, .event_type, .text, .text_uri,
          .created_at} AS event
ORDER BY position, event.sequence
"""
