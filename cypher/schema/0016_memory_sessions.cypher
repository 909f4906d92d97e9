// Working-memory sessions (seed 003): a client's own session handle is unique (idempotent
// startSession), and a session's entries and summaries are found by session id.
CREATE CONSTRAINT memory_session_external_ref IF NOT EXISTS FOR (n:MemorySession) REQUIRE (n.client_id, n.external_ref) IS UNIQUE;
CREATE INDEX memory_record_client_session IF NOT EXISTS FOR (n:MemoryRecord) ON (n.client_id, n.session_id);
