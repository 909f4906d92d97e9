// Issue 15, seed 004: user profiles, erasing a subject, memory relationships, access log fields.
// Subjects written before profiles had an active flag are active.
MATCH (s:MemorySubject) WHERE s.active IS NULL SET s.active = true;
CREATE INDEX memory_subject_client_active IF NOT EXISTS FOR (n:MemorySubject) ON (n.client_id, n.active);
// Erasing a subject finds every record and session about it by (client, subject).
CREATE INDEX memory_record_client_subject IF NOT EXISTS FOR (n:MemoryRecord) ON (n.client_id, n.subject);
CREATE INDEX memory_session_client_subject IF NOT EXISTS FOR (n:MemorySession) ON (n.client_id, n.subject);
// The seed's relationship types are MemoryLinks too: found by link_id like the others (0008).
CREATE INDEX reply_to_link_id IF NOT EXISTS FOR ()-[r:REPLY_TO]-() ON (r.link_id);
CREATE INDEX reference_link_id IF NOT EXISTS FOR ()-[r:REFERENCE]-() ON (r.link_id);
CREATE INDEX follow_up_link_id IF NOT EXISTS FOR ()-[r:FOLLOW_UP]-() ON (r.link_id);
// The access log: the retention purge scans by age across clients; an erasure (and the
// accessLog targetId filter) finds a client's entries about given records.
CREATE INDEX access_log_created IF NOT EXISTS FOR (n:AccessLogEntry) ON (n.created_at);
CREATE INDEX access_log_client_target IF NOT EXISTS FOR (n:AccessLogEntry) ON (n.client_id, n.target_id);
