// Issue 15, seed 002 (RaptorFlow): the client's workspace memory (brand voice, ICPs,
// preferences, keyed per client), and the expiry and cap of sessions and threads.
// One value per key and client: concurrent first writes of a key MERGE the same node.
CREATE CONSTRAINT workspace_memory_id_unique IF NOT EXISTS FOR (n:WorkspaceMemory) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT workspace_memory_client_key IF NOT EXISTS FOR (n:WorkspaceMemory) REQUIRE (n.client_id, n.key) IS UNIQUE;
CREATE INDEX workspace_memory_client_created IF NOT EXISTS FOR (n:WorkspaceMemory) ON (n.client_id, n.created_at);
// getContext reads each type's values, highest priority first.
CREATE INDEX workspace_memory_client_type IF NOT EXISTS FOR (n:WorkspaceMemory) ON (n.client_id, n.memory_type);
CREATE INDEX workspace_memory_updated IF NOT EXISTS FOR (n:WorkspaceMemory) ON (n.updated_at);
CREATE INDEX workspace_memory_index_claim IF NOT EXISTS FOR (n:WorkspaceMemory) ON (n.index_claim_until);
// The sweeper finds expired sessions and threads, and capped threads, by these.
CREATE INDEX memory_session_expires IF NOT EXISTS FOR (n:MemorySession) ON (n.expires_at);
CREATE INDEX conversation_thread_expires IF NOT EXISTS FOR (n:ConversationThread) ON (n.expires_at);
CREATE INDEX conversation_thread_max_events IF NOT EXISTS FOR (n:ConversationThread) ON (n.max_events);
