"""Access log retention (seed 004's memory_access_logs, kept for a while): entries older than
Settings.access_log_retention_days are deleted by a step of the memory sweeper
(sweep_steps.py), in batches; 0 keeps every entry."""

from __future__ import annotations

from app.domain.memory.sweep_steps import PastRetention

KIND = "access_log_entries"  # the step's count in the sweep's `expired` counts
# Seeks index access_log_created (migration 0034).
PURGE_OLD_ENTRIES = """
MATCH (e:AccessLogEntry)
WHERE e.created_at < $before AND ($client_id IS NULL OR e.client_id = $client_id)
WITH e LIMIT $batch
WITH e, e.client_id AS client_id
DELETE e
RETURN client_id, count(*) AS purged
"""


class AccessLogRetention(PastRetention):
    """A sweep step: one client's entries past their retention deleted, or every client's."""

    query = PURGE_OLD_ENTRIES
    kind = KIND
